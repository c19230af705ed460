import { useEffect, useState } from 'react';
import { createRoute, Link, useNavigate } from '@tanstack/react-router';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { describeError } from '@/api/errors';
import { signIn } from '@/api/session';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { FieldError, Input, Label } from '@/components/ui/input';
import { rootRoute } from '@/routes/root';
import { safeNext } from '@/routes/app-route';
import { takeFirstDraw } from '@/lib/page-focus';

const credentials = z.object({
  email: z.email('Enter the e-mail address you sign in with'),
  password: z.string().min(1, 'Enter your password'),
});
type Credentials = z.infer<typeof credentials>;

/** The frame of the pages before sign-in. */
export function AuthFrame({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <main id="main" className="grid min-h-full place-items-center p-4">
      <Card className="w-full max-w-sm p-6">
        <p className="mb-1 text-sm text-muted-foreground">lead-service console</p>
        <h1 className="mb-4 text-xl font-semibold">{title}</h1>
        {children}
      </Card>
    </main>
  );
}

function SignInPage() {
  useEffect(() => void takeFirstDraw(), []);
  const { next } = signInRoute.useSearch();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [failure, setFailure] = useState<string | null>(null);
  const form = useForm<Credentials>({ resolver: zodResolver(credentials), defaultValues: { email: '', password: '' } });
  const { errors, isSubmitting } = form.formState;

  const submit = form.handleSubmit(async ({ email, password }) => {
    setFailure(null);
    try {
      await signIn(email, password);
      await queryClient.invalidateQueries({ queryKey: ['me'] });
      // `next` is a path of the console (kept in the URL only as a path: never a credential).
      await navigate({ to: safeNext(next) ?? '/jobs' });
    } catch (error) {
      setFailure(describeError(error));
    }
  });

  return (
    <AuthFrame title="Sign in">
      <form onSubmit={submit} noValidate className="flex flex-col gap-3">
        <div className="flex flex-col gap-1">
          <Label htmlFor="email">E-mail</Label>
          <Input
            id="email"
            type="email"
            autoComplete="username"
            aria-invalid={Boolean(errors.email)}
            aria-describedby="email-error"
            {...form.register('email')}
          />
          <FieldError id="email-error" message={errors.email?.message} />
        </div>
        <div className="flex flex-col gap-1">
          <Label htmlFor="password">Password</Label>
          <Input
            id="password"
            type="password"
            autoComplete="current-password"
            aria-invalid={Boolean(errors.password)}
            aria-describedby="password-error"
            {...form.register('password')}
          />
          <FieldError id="password-error" message={errors.password?.message} />
        </div>
        {failure && (
          <p role="alert" className="text-sm text-destructive">
            {failure}
          </p>
        )}
        <Button type="submit" disabled={isSubmitting}>
          {isSubmitting ? 'Signing in…' : 'Sign in'}
        </Button>
        <Link to="/forgot-password" className="text-sm text-primary underline-offset-4 hover:underline">
          Forgot your password?
        </Link>
      </form>
    </AuthFrame>
  );
}

export const signInRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: 'sign-in',
  validateSearch: z.object({ next: z.string().optional() }),
  component: SignInPage,
});
