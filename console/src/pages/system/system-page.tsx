import { PageHeader } from '@/components/states';

export function SystemPage() {
  return <PageHeader title="System" description="Being built." />;
}
