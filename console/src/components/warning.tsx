import type { ReactNode } from 'react';
import { AlertTriangle } from 'lucide-react';

/** A warning before or after an action that cannot be undone (a secret shown once, a credential that stops). */
export function Warning({ children }: { children: ReactNode }) {
  return (
    <p className="flex items-start gap-2 rounded-md border border-warning bg-warning/10 p-3 text-sm">
      <AlertTriangle className="mt-0.5 size-4 shrink-0 text-warning" aria-hidden />
      <span>{children}</span>
    </p>
  );
}
