import { useQuery } from '@tanstack/react-query';
import { selectedClient } from '@/api/client';
import { ApiCallButton } from '@/components/api-call-button';
import { Chart } from '@/components/chart';
import { ErrorState, Loading } from '@/components/states';
import { Dialog, DialogContent } from '@/components/ui/dialog';
import { formatDateTime } from '@/lib/format';
import { ACTOR_ROLES, shiftDetailQuery } from './queries';

const SHIPPED_LABELS = {
  posts_published: 'Posts published',
  pages_published: 'Pages published',
  jobs_completed: 'Jobs completed',
  research_completed: 'Research completed',
  pins_claimed: 'Pins claimed',
} as const;

const hourOf = (iso: string) =>
  new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' }) + ' UTC';

/** One shift (getShiftDetail): its activity per UTC hour, drawn from the API's histogram, and what it shipped. */
export function ShiftPanel({
  shift,
  onClose,
}: {
  shift: { actor_id: string; started_at: string; ended_at: string };
  onClose: () => void;
}) {
  const clientKey = selectedClient();
  const detail = useQuery(shiftDetailQuery(clientKey, shift));
  return (
    <Dialog open onOpenChange={(open) => !open && onClose()}>
      <DialogContent
        side="right"
        title="Shift"
        description={`${formatDateTime(shift.started_at)} to ${formatDateTime(shift.ended_at)}`}
      >
        {detail.isLoading && <Loading />}
        {detail.error && <ErrorState error={detail.error} retry={() => void detail.refetch()} />}
        {detail.data && (
          <>
            <p className="text-sm">
              {detail.data.actor_kind} · {ACTOR_ROLES[detail.data.role]} ·{' '}
              <span className="font-mono text-xs">{detail.data.actor_id}</span>
            </p>
            <Chart
              title="Activity per hour"
              data={detail.data.hourly}
              category="hour"
              formatCategory={hourOf}
              series={[
                { key: 'events', label: 'Events' },
                { key: 'shipped', label: 'Shipped' },
              ]}
            />
            <section className="flex flex-col gap-2">
              <h3 className="font-semibold">Shipped</h3>
              {Object.entries(SHIPPED_LABELS).map(([key, label]) => {
                const items = detail.data.shipped[key as keyof typeof SHIPPED_LABELS];
                return (
                  <div key={key}>
                    <h4 className="text-sm font-medium">
                      {label} ({items.length})
                    </h4>
                    {items.length > 0 && (
                      <ul className="ml-4 list-disc text-sm">
                        {items.map((item) => (
                          <li key={item.id}>
                            {item.label} <span className="text-muted-foreground">{formatDateTime(item.at)}</span>
                          </li>
                        ))}
                      </ul>
                    )}
                  </div>
                );
              })}
            </section>
          </>
        )}
        <div>
          <ApiCallButton
            call={{
              operationId: 'getShiftDetail',
              method: 'GET',
              path: '/api/v1/detail',
              query: shift,
              headers: clientKey ? { 'X-Selected-Client-Id': clientKey } : undefined,
            }}
          />
        </div>
      </DialogContent>
    </Dialog>
  );
}
