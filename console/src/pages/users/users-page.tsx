import { PageHeader } from '@/components/states';

export function UsersPage() {
  return <PageHeader title="Users" description="Being built." />;
}
