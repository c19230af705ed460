import type { HTMLAttributes } from 'react';
import { cn } from '@/lib/utils';

export const Card = ({ className, ...props }: HTMLAttributes<HTMLDivElement>) => (
  <div className={cn('rounded-lg border border-border bg-card p-4 shadow-sm', className)} {...props} />
);

const TONES = {
  neutral: 'bg-secondary text-secondary-foreground',
  info: 'bg-accent text-accent-foreground',
  success: 'border border-success text-success',
  warning: 'border border-warning text-warning',
  danger: 'border border-destructive text-destructive',
} as const;

export function Badge({
  tone = 'neutral',
  className,
  ...props
}: HTMLAttributes<HTMLSpanElement> & { tone?: keyof typeof TONES }) {
  return (
    <span
      className={cn('inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium', TONES[tone], className)}
      {...props}
    />
  );
}
