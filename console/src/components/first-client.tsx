import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { toast } from 'sonner';
import { api, unwrap } from '@/api/client';
import { describeError } from '@/api/errors';
import { ApiCallButton } from './api-call-button';
import { Button } from './ui/button';
import { Card } from './ui/card';
import { FieldError, Input, Label } from './ui/input';

const schema = z.object({
  name: z.string().trim().min(1, 'Name the client').max(200),
  admin_email: z.email("Enter the e-mail of the client's administrator"),
});
type NewClient = z.infer<typeof schema>;

/**
 * A fresh service has no client, so a super_admin's workspace has nothing to act for: this creates the first one
 * (createClient) and acts for it. The rest of client administration is the console's administration part.
 */
export function FirstClient({ onCreated }: { onCreated: (clientId: string) => void }) {
  const queryClient = useQueryClient();
  const form = useForm<NewClient>({ resolver: zodResolver(schema), defaultValues: { name: '', admin_email: '' } });
  const { errors } = form.formState;
  const create = useMutation({
    mutationFn: (body: NewClient) => unwrap(api.POST('/api/v1/dashboard/admin/clients', { body })),
    onSuccess: async (client) => {
      toast.success(`${client.name} created; you now act for it`);
      await queryClient.invalidateQueries({ queryKey: ['admin-clients'] });
      onCreated(client.client_id);
    },
    onError: (error) => toast.error(describeError(error)),
  });
  const values = form.watch();
  return (
    <Card className="mt-4 max-w-md">
      <h2 className="mb-1 font-semibold">No client yet</h2>
      <p className="mb-3 text-sm text-muted-foreground">Create the first one to work in its workspace.</p>
      <form onSubmit={form.handleSubmit((body) => create.mutate(body))} noValidate className="flex flex-col gap-3">
        <div className="flex flex-col gap-1">
          <Label htmlFor="new-client-name">Client name</Label>
          <Input
            id="new-client-name"
            aria-invalid={Boolean(errors.name)}
            aria-describedby="new-client-name-error"
            {...form.register('name')}
          />
          <FieldError id="new-client-name-error" message={errors.name?.message} />
        </div>
        <div className="flex flex-col gap-1">
          <Label htmlFor="new-client-admin">Administrator&apos;s e-mail</Label>
          <Input
            id="new-client-admin"
            type="email"
            aria-invalid={Boolean(errors.admin_email)}
            aria-describedby="new-client-admin-error"
            {...form.register('admin_email')}
          />
          <FieldError id="new-client-admin-error" message={errors.admin_email?.message} />
        </div>
        <div className="flex flex-wrap gap-2">
          <Button type="submit" disabled={create.isPending}>
            Create the client
          </Button>
          <ApiCallButton
            call={{
              operationId: 'createClient',
              method: 'POST',
              path: '/api/v1/dashboard/admin/clients',
              body: values,
            }}
          />
        </div>
      </form>
    </Card>
  );
}
