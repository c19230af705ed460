import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { ApiError } from './api/errors';
import { createConsoleRouter } from './router';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      // A refusal in words is shown at once; only an outage or a rate limit is worth trying again.
      retry: (count, error) => count < 3 && error instanceof ApiError && (error.isOutage || error.status === 429),
      retryDelay: (count, error) =>
        error instanceof ApiError && error.retryAfterSeconds ? error.retryAfterSeconds * 1000 : 1000 * 2 ** count,
    },
  },
});
const router = createConsoleRouter(queryClient);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
