import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { api, selectedClient, unwrap } from '@/api/client';
import { describeError } from '@/api/errors';
import { ApiCallButton } from '@/components/api-call-button';
import { ErrorState, Loading } from '@/components/states';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Field, NativeSelect } from '@/components/ui/input';
import { formatDateTime, formatRelative } from '@/lib/format';
import { digestQuery } from './queries';

type Cadence = 'off' | 'daily' | 'weekly';
const CADENCES: Record<Cadence, string> = {
  off: 'Off: no digest',
  daily: 'Daily, at 06:00 UTC',
  weekly: 'Weekly, on Mondays at 06:00 UTC',
};

/** How often the activity digest is e-mailed to the client's admins (getDigestSettings / updateDigestSettings). */
export function DigestTab() {
  const clientKey = selectedClient();
  const queryClient = useQueryClient();
  const settings = useQuery(digestQuery(clientKey));
  const [cadence, setCadence] = useState<Cadence | null>(null);
  const chosen = cadence ?? settings.data?.cadence ?? 'off';
  const save = useMutation({
    mutationFn: () => unwrap(api.PATCH('/api/v1/digest-settings', { body: { cadence: chosen } })),
    onSuccess: (answer) => {
      queryClient.setQueryData(digestQuery(clientKey).queryKey, answer);
      setCadence(null);
      toast.success(
        answer.next_due_at
          ? `Digest ${answer.cadence}; the next goes out ${formatDateTime(answer.next_due_at)}`
          : 'Digest off',
      );
    },
    onError: (error) => toast.error(describeError(error)),
  });

  if (settings.isLoading) return <Loading />;
  if (settings.error) return <ErrorState error={settings.error} retry={() => void settings.refetch()} />;
  const s = settings.data!;
  return (
    <div className="flex max-w-xl flex-col gap-4">
      <Card>
        <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 text-sm">
          <dt className="text-muted-foreground">Cadence</dt>
          <dd>{CADENCES[s.cadence]}</dd>
          <dt className="text-muted-foreground">Next digest</dt>
          <dd data-testid="next-digest">
            {s.next_due_at ? (
              <>
                <time dateTime={s.next_due_at}>{formatDateTime(s.next_due_at)}</time>{' '}
                <span className="text-muted-foreground">({formatRelative(s.next_due_at)})</span>
              </>
            ) : (
              'None while the digest is off'
            )}
          </dd>
          <dt className="text-muted-foreground">Last sent</dt>
          <dd>{s.last_sent_at ? formatDateTime(s.last_sent_at) : 'Never'}</dd>
          <dt className="text-muted-foreground">Changed</dt>
          <dd>{formatDateTime(s.updated_at)}</dd>
        </dl>
      </Card>
      <form
        className="flex flex-wrap items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <Field
          id="digest-cadence"
          label="Send the digest"
          hint="To the client's administrator and brand admins: shifts and anomalies of the period."
          className="min-w-64 flex-1"
        >
          <NativeSelect
            id="digest-cadence"
            aria-describedby="digest-cadence-hint"
            value={chosen}
            onChange={(e) => setCadence(e.target.value as Cadence)}
          >
            {Object.entries(CADENCES).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </NativeSelect>
        </Field>
        <Button type="submit" disabled={save.isPending || chosen === s.cadence}>
          Save cadence
        </Button>
        <ApiCallButton
          call={{
            operationId: 'updateDigestSettings',
            method: 'PATCH',
            path: '/api/v1/digest-settings',
            body: { cadence: chosen },
            headers: clientKey ? { 'X-Selected-Client-Id': clientKey } : undefined,
          }}
        />
      </form>
    </div>
  );
}
