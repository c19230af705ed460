import { PageHeader } from '@/components/states';

export function AgentsPage() {
  return <PageHeader title="Agents" description="Being built." />;
}
