import { useState } from 'react';
import { createRoute, Link } from '@tanstack/react-router';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { describeError } from '@/api/errors';
import { requestPasswordReset } from '@/api/session';
import { Button } from '@/components/ui/button';
import { FieldError, Input, Label } from '@/components/ui/input';
import { rootRoute } from '@/routes/root';
import { AuthFrame } from './sign-in';

const schema = z.object({ email: z.email('Enter the e-mail address you sign in with') });

/**
 * The existing reset flow: the API e-mails a link to its reset-password page (the same answer whether or not the
 * account exists), where the new password is set; then the user signs in here.
 */
function ForgotPasswordPage() {
  const [sent, setSent] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const form = useForm<z.infer<typeof schema>>({ resolver: zodResolver(schema), defaultValues: { email: '' } });
  const submit = form.handleSubmit(async ({ email }) => {
    setFailure(null);
    try {
      await requestPasswordReset(email);
      setSent(true);
    } catch (error) {
      setFailure(describeError(error));
    }
  });
  return (
    <AuthFrame title="Reset your password">
      {sent ? (
        <p role="status" className="text-sm">
          If an account uses that address, an e-mail with a link to set a new password is on its way. The link works
          once and for a limited time.
        </p>
      ) : (
        <form onSubmit={submit} noValidate className="flex flex-col gap-3">
          <div className="flex flex-col gap-1">
            <Label htmlFor="email">E-mail</Label>
            <Input
              id="email"
              type="email"
              autoComplete="username"
              aria-invalid={Boolean(form.formState.errors.email)}
              aria-describedby="email-error"
              {...form.register('email')}
            />
            <FieldError id="email-error" message={form.formState.errors.email?.message} />
          </div>
          {failure && (
            <p role="alert" className="text-sm text-destructive">
              {failure}
            </p>
          )}
          <Button type="submit" disabled={form.formState.isSubmitting}>
            Send the reset link
          </Button>
        </form>
      )}
      <Link to="/sign-in" search={{}} className="mt-4 block text-sm text-primary underline-offset-4 hover:underline">
        Back to sign in
      </Link>
    </AuthFrame>
  );
}

export const forgotPasswordRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: 'forgot-password',
  component: ForgotPasswordPage,
});
