import { createRootRouteWithContext, Outlet } from '@tanstack/react-router';
import type { QueryClient } from '@tanstack/react-query';
import { Toaster } from 'sonner';

export interface RouterContext {
  queryClient: QueryClient;
}

export const rootRoute = createRootRouteWithContext<RouterContext>()({
  component: () => (
    <>
      <Outlet />
      {/* sonner's own neutral colours, in the system's theme: its `richColors` success toast is 4.25:1 in light. */}
      <Toaster theme="system" closeButton position="bottom-right" />
    </>
  ),
});
