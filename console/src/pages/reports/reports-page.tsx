import { PageHeader } from '@/components/states';

export function ReportsPage() {
  return <PageHeader title="Reports" description="Being built." />;
}
