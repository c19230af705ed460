import { useNavigate } from '@tanstack/react-router';
import { PageHeader } from '@/components/states';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs';
import { AnomaliesTab } from './anomalies';
import { DigestTab } from './digest';
import { activityRoute } from './routes';
import { ShiftsTab } from './shifts';

type Tab = 'shifts' | 'digest' | 'anomalies';

/** A client's activity: its people's and agents' shifts, the digest e-mailed about them, and what looks unusual. */
export function ActivityPage() {
  const search = activityRoute.useSearch();
  const navigate = useNavigate({ from: activityRoute.fullPath });
  const tab = search.tab ?? 'shifts';
  return (
    <>
      <PageHeader
        title="Activity"
        description="Who worked when (shifts of users, agents and the credential triple), the digest, and anomalies."
      />
      <Tabs
        value={tab}
        onValueChange={(value) =>
          void navigate({ search: (prev) => ({ ...prev, tab: value === 'shifts' ? undefined : (value as Tab) }) })
        }
      >
        <TabsList aria-label="Activity views">
          <TabsTrigger value="shifts">Shifts</TabsTrigger>
          <TabsTrigger value="digest">Digest</TabsTrigger>
          <TabsTrigger value="anomalies">Anomalies</TabsTrigger>
        </TabsList>
        <TabsContent value="shifts" className="mt-4">
          <ShiftsTab />
        </TabsContent>
        <TabsContent value="digest" className="mt-4">
          <DigestTab />
        </TabsContent>
        <TabsContent value="anomalies" className="mt-4">
          <AnomaliesTab />
        </TabsContent>
      </Tabs>
    </>
  );
}
