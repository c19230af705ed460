import { PageHeader } from '@/components/states';

export function ActivityPage() {
  return <PageHeader title="Activity" description="Being built." />;
}
