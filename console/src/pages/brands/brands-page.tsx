import { PageHeader } from '@/components/states';

export function BrandsPage() {
  return <PageHeader title="Brands" description="Being built." />;
}
