import { useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { UserPlus } from 'lucide-react';
import { toast } from 'sonner';
import { z } from 'zod';
import { api, unwrap } from '@/api/client';
import { describeError } from '@/api/errors';
import { ApiCallButton } from '@/components/api-call-button';
import { Button } from '@/components/ui/button';
import { Dialog, DialogContent, DialogTrigger } from '@/components/ui/dialog';
import { Field, Input, NativeSelect } from '@/components/ui/input';
import type { ApiCall } from '@/lib/api-call';
import { clientsQuery, ROLE_LABELS, type DashboardUser } from './queries';

/** Permissions as typed: one per line or separated by commas. */
export const parsePermissions = (text: string) =>
  text
    .split(/[\n,]/)
    .map((p) => p.trim())
    .filter(Boolean);

const createForm = z
  .object({
    email: z.email('An e-mail address').max(320),
    role: z.enum(['super_admin', 'brand_admin', 'client_user']),
    client_id: z.string(),
    password: z.string().refine((v) => v === '' || (v.length >= 10 && v.length <= 200), 'At least 10 characters'),
    permissions: z.string(),
  })
  .refine((v) => v.role === 'super_admin' || v.client_id !== '', {
    path: ['client_id'],
    message: 'Brand admins and client users belong to a client',
  });
type CreateForm = z.infer<typeof createForm>;

const bodyOf = (v: Partial<CreateForm>) => ({
  email: (v.email ?? '').trim(),
  role: v.role ?? 'client_user',
  ...(v.role !== 'super_admin' && v.client_id ? { client_id: v.client_id } : {}),
  ...(v.password ? { password: v.password } : {}),
  permissions: parsePermissions(v.permissions ?? ''),
});

/** "New user": a dashboard login (createDashboardUser), with or without a first password. */
export function CreateUserDialog({ onCreated }: { onCreated: (user: DashboardUser) => void }) {
  const [open, setOpen] = useState(false);
  const queryClient = useQueryClient();
  const clients = useQuery(clientsQuery);
  const form = useForm<CreateForm>({
    resolver: zodResolver(createForm),
    defaultValues: { email: '', role: 'client_user', client_id: '', password: '', permissions: '' },
  });
  const { errors, isSubmitting } = form.formState;
  const values = useWatch({ control: form.control });
  const call: ApiCall = {
    operationId: 'createDashboardUser',
    method: 'POST',
    path: '/api/v1/dashboard/users',
    body: { ...bodyOf(values), ...(values.password ? { password: '<password>' } : {}) },
  };

  const submit = form.handleSubmit(async (v) => {
    try {
      const user = await unwrap(api.POST('/api/v1/dashboard/users', { body: bodyOf(v) }));
      toast.success(`User created: ${user.email}`);
      void queryClient.invalidateQueries({ queryKey: ['users'] });
      form.reset();
      setOpen(false);
      onCreated(user);
    } catch (error) {
      toast.error(describeError(error));
    }
  });

  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button>
          <UserPlus aria-hidden /> New user
        </Button>
      </DialogTrigger>
      <DialogContent
        title="New user"
        description="Without a password the user cannot sign in until one is set or a reset e-mail is sent."
      >
        <form onSubmit={submit} noValidate className="flex flex-col gap-3">
          <Field id="new-user-email" label="E-mail" error={errors.email?.message}>
            <Input
              id="new-user-email"
              type="email"
              autoComplete="off"
              aria-invalid={Boolean(errors.email)}
              aria-describedby="new-user-email-error"
              {...form.register('email')}
            />
          </Field>
          <Field id="new-user-role" label="Role">
            <NativeSelect id="new-user-role" {...form.register('role')}>
              {Object.entries(ROLE_LABELS).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </NativeSelect>
          </Field>
          {values.role !== 'super_admin' && (
            <Field id="new-user-client" label="Client" error={errors.client_id?.message}>
              <NativeSelect
                id="new-user-client"
                aria-invalid={Boolean(errors.client_id)}
                aria-describedby="new-user-client-error"
                {...form.register('client_id')}
              >
                <option value="">{clients.isPending ? 'Loading clients…' : 'Choose a client'}</option>
                {clients.data?.clients.map((c) => (
                  <option key={c.client_id} value={c.client_id}>
                    {c.name}
                  </option>
                ))}
              </NativeSelect>
            </Field>
          )}
          <Field
            id="new-user-password"
            label="Password (optional)"
            hint="At least 10 characters; or leave empty and send a reset e-mail afterwards."
            error={errors.password?.message}
          >
            <Input
              id="new-user-password"
              type="password"
              autoComplete="new-password"
              aria-invalid={Boolean(errors.password)}
              aria-describedby="new-user-password-hint new-user-password-error"
              {...form.register('password')}
            />
          </Field>
          <Field id="new-user-permissions" label="Permissions" hint="Separated by commas; empty for none.">
            <Input
              id="new-user-permissions"
              aria-describedby="new-user-permissions-hint"
              {...form.register('permissions')}
            />
          </Field>
          <div className="flex flex-wrap justify-end gap-2">
            <ApiCallButton call={call} />
            <Button type="submit" disabled={isSubmitting}>
              Create user
            </Button>
          </div>
        </form>
      </DialogContent>
    </Dialog>
  );
}
