import { useQuery } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { meQuery } from '@/api/session';
import { PageHeader } from '@/components/states';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs';
import { RequestsSection } from './requests-section';
import { agentsRoute } from './routes';
import { TokensSection } from './tokens-section';

/** Agents: the access requests this approver could decide, and the agent tokens approved. */
export function AgentsPage() {
  const role = useQuery(meQuery).data!.role;
  const search = agentsRoute.useSearch();
  const navigate = useNavigate({ from: agentsRoute.fullPath });
  const tab = search.tab ?? 'requests';
  return (
    <>
      <PageHeader
        title="Agents"
        description="Approve or deny agents’ access requests with the limits they are held to, and manage their tokens."
      />
      <Tabs
        value={tab}
        onValueChange={(v) =>
          void navigate({ search: (prev) => ({ ...prev, tab: v === 'tokens' ? 'tokens' : undefined }) })
        }
        className="flex flex-col gap-4"
      >
        <TabsList aria-label="Agents" className="self-start">
          <TabsTrigger value="requests">Access requests</TabsTrigger>
          <TabsTrigger value="tokens">Agent tokens</TabsTrigger>
        </TabsList>
        <TabsContent value="requests">
          <RequestsSection role={role} />
        </TabsContent>
        <TabsContent value="tokens">
          <TokensSection
            role={role}
            view={search}
            onView={(change) => void navigate({ search: (prev) => ({ ...prev, ...change }) })}
          />
        </TabsContent>
      </Tabs>
    </>
  );
}
