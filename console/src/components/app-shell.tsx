import { lazy, Suspense, useCallback, useEffect, useRef, useState, type ComponentType } from 'react';
import { Link, Outlet, useMatches, useNavigate, useRouter, useRouterState } from '@tanstack/react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Activity,
  BarChart3,
  Bot,
  Briefcase,
  Building2,
  Eye,
  FileText,
  KeyRound,
  LogOut,
  Menu,
  Search,
  Server,
  UserCog,
  Users,
  WifiOff,
} from 'lucide-react';
import { toast } from 'sonner';
import { api, onApiOutcome, selectedClient, setSelectedClient, unwrap } from '@/api/client';
import { ApiError, describeError } from '@/api/errors';
import {
  connectLiveEvents,
  onLiveEvent,
  onLiveState,
  onResync,
  restartLiveEvents,
  type LiveState,
} from '@/api/live-events';
import { meQuery, signOut, type Role } from '@/api/session';
import { Button } from './ui/button';
import { FirstClient } from './first-client';
import { Shortcuts } from './shortcuts';
import { NativeSelect, Label } from './ui/input';
import { cn } from '@/lib/utils';
import { takeFirstDraw } from '@/lib/page-focus';

export interface NavItem {
  to: string;
  label: string;
  icon: ComponentType<{ className?: string }>;
  /** The roles that see it; every role when absent. */
  roles?: Role[];
  group: 'Workspace' | 'Administration';
}

/**
 * The console's pages; a role sees only what it may use (the API refuses the rest anyway): the client's workspace
 * for every role, administration for brand admins and super admins, never for a client user.
 */
export const NAV: NavItem[] = [
  { to: '/jobs', label: 'Jobs', icon: Briefcase, group: 'Workspace' },
  { to: '/leads', label: 'Leads', icon: Users, group: 'Workspace' },
  { to: '/watches', label: 'Watches', icon: Eye, group: 'Workspace' },
  { to: '/content', label: 'Content', icon: FileText, group: 'Workspace' },
  { to: '/credentials', label: 'Credentials', icon: KeyRound, group: 'Workspace' },
  { to: '/agents', label: 'Agents', icon: Bot, roles: ['super_admin', 'brand_admin'], group: 'Administration' },
  { to: '/brands', label: 'Brands', icon: Building2, roles: ['super_admin', 'brand_admin'], group: 'Administration' },
  { to: '/users', label: 'Users', icon: UserCog, roles: ['super_admin'], group: 'Administration' },
  {
    to: '/activity',
    label: 'Activity',
    icon: Activity,
    roles: ['super_admin', 'brand_admin'],
    group: 'Administration',
  },
  { to: '/reports', label: 'Reports', icon: BarChart3, roles: ['super_admin', 'brand_admin'], group: 'Administration' },
  { to: '/system', label: 'System', icon: Server, roles: ['super_admin'], group: 'Administration' },
];

/** The palette (cmdk and its searches) loads the first time it opens, not with the entry bundle. */
const loadPalette = () => import('./command-palette');
const CommandPalette = lazy(() => loadPalette().then((m) => ({ default: m.CommandPalette })));

const SELECTED_CLIENT_KEY = 'lead-console.selected-client';

/** The admin's clients, for the switcher (and to know whether there is any to act for). */
const adminClientsQuery = {
  queryKey: ['admin-clients'],
  queryFn: () => unwrap(api.GET('/api/v1/dashboard/admin/clients', { params: { query: { page_size: 100 } } })),
};

/** A super_admin acts for one client at a time (X-Selected-Client-Id); the choice lasts for this tab. */
function ClientSwitcher({ value, onChoose }: { value: string; onChoose: (id: string) => void }) {
  const clients = useQuery(adminClientsQuery);
  return (
    <div className="flex items-center gap-2">
      <Label htmlFor="client-switcher" className="whitespace-nowrap text-muted-foreground">
        Acting for
      </Label>
      <NativeSelect id="client-switcher" value={value} onChange={(e) => onChoose(e.target.value)} className="w-48">
        <option value="">No client chosen</option>
        {clients.data?.clients.map((c) => (
          <option key={c.client_id} value={c.client_id}>
            {c.name}
          </option>
        ))}
      </NativeSelect>
    </div>
  );
}

/** Before a client is chosen: how to choose one, or, on a service with none yet, the first one created here. */
function ChooseClient({ onChoose }: { onChoose: (id: string) => void }) {
  const clients = useQuery(adminClientsQuery);
  return (
    <div className="max-w-xl">
      <h1 className="mb-2 text-2xl font-semibold">Choose a client</h1>
      <p className="text-sm text-muted-foreground">
        A super admin works in one client&apos;s workspace at a time: choose it under &ldquo;Acting for&rdquo; above.
        Every call then names it (X-Selected-Client-Id).
      </p>
      {clients.data?.total === 0 && <FirstClient onCreated={onChoose} />}
    </div>
  );
}

function LiveIndicator({ state }: { state: LiveState }) {
  if (state === 'live')
    return (
      <span className="flex items-center gap-1 text-xs text-success" role="status">
        <span className="size-2 rounded-full bg-success" aria-hidden /> Live
      </span>
    );
  return (
    <span className="flex items-center gap-1 text-xs text-warning" role="status">
      <WifiOff className="size-3" aria-hidden />{' '}
      {state === 'offline' ? 'Offline, reconnecting…' : state === 'ended' ? 'Not live: sign in again' : 'Connecting…'}
    </span>
  );
}

/**
 * The signed-in frame: navigation by role, the super_admin's client switcher, the live stream's state, a banner
 * while the service or an engine is unavailable, and the page. A 401 from any call sends the user to sign in and
 * back to this page afterwards.
 */
export function AppShell() {
  const me = useQuery(meQuery).data!;
  const queryClient = useQueryClient();
  const router = useRouter();
  const pathname = useRouterState({ select: (state) => state.location.pathname });
  const main = useRef<HTMLElement>(null);
  // A page change moves the focus to the page, so a keyboard or screen-reader user is not left on a link that is
  // gone; the first page after a load keeps the browser's start (the skip link). A control the page focused keeps it.
  useEffect(() => {
    if (takeFirstDraw()) return;
    if (!main.current?.contains(document.activeElement)) main.current?.focus({ preventScroll: true });
  }, [pathname]);
  const navigate = useNavigate();
  // A page that works without a chosen client (an administration page) is drawn before the super_admin picks one.
  const clientFree = useMatches({ select: (matches) => matches.some((m) => m.staticData?.clientFree) });
  const [live, setLive] = useState<LiveState>('connecting');
  const [outage, setOutage] = useState<ApiError | null>(null);
  const [navOpen, setNavOpen] = useState(false);
  const [actingFor, setActingFor] = useState<string | null>(selectedClient());
  const [palette, setPalette] = useState({ open: false, loaded: false });
  const openPalette = useCallback(() => setPalette({ open: true, loaded: true }), []);

  if (me.role === 'super_admin' && selectedClient() === null) {
    const kept = sessionStorage.getItem(SELECTED_CLIENT_KEY);
    if (kept) {
      setSelectedClient(kept);
      setActingFor(kept);
    }
  }

  // Fetched once the page is drawn, so the first Ctrl-K opens it at once and no key typed after it is lost.
  useEffect(() => void setTimeout(() => void loadPalette(), 1000), []);

  useEffect(() => {
    const stopStream = connectLiveEvents();
    const stopState = onLiveState((state) => {
      setLive(state);
      // The stream ends when the session does (a logout elsewhere, an expiry, a deactivation): asking who is signed
      // in then answers 401, which brings the sign-in page at once, not at the next click.
      if (state === 'ended') void queryClient.invalidateQueries({ queryKey: ['me'] });
    });
    // Every event refreshes what it changes; pages listen for the events they show more precisely.
    const stopEvents = onLiveEvent((event) => {
      const root = event.type.startsWith('watch.') ? ['watches', 'leads'] : ['jobs', 'usage'];
      for (const key of root) void queryClient.invalidateQueries({ queryKey: [key] });
    });
    const stopResync = onResync(() => void queryClient.invalidateQueries());
    const stopOutcome = onApiOutcome((error) => {
      if (!error) return setOutage(null);
      if (error.isOutage) setOutage(error);
      if (error.status === 401) {
        queryClient.removeQueries({ queryKey: ['me'] });
        const here = router.state.location.href;
        void navigate({ to: '/sign-in', search: { next: here } });
      }
    });
    return () => {
      stopStream();
      stopState();
      stopEvents();
      stopResync();
      stopOutcome();
    };
  }, [queryClient, router, navigate]);

  const actFor = (id: string) => {
    setActingFor(id || null);
    setSelectedClient(id || null);
    if (id) sessionStorage.setItem(SELECTED_CLIENT_KEY, id);
    else sessionStorage.removeItem(SELECTED_CLIENT_KEY);
    restartLiveEvents();
    void queryClient.invalidateQueries({
      predicate: (q) => q.queryKey[0] !== 'me' && q.queryKey[0] !== 'admin-clients',
    });
  };

  const leave = async () => {
    try {
      await signOut();
    } catch (error) {
      toast.error(describeError(error));
    }
    queryClient.clear();
    sessionStorage.removeItem(SELECTED_CLIENT_KEY);
    setSelectedClient(null);
    void navigate({ to: '/sign-in', search: {} });
  };

  const nav = NAV.filter((item) => !item.roles || item.roles.includes(me.role));
  return (
    <div className="flex min-h-full flex-col md:flex-row">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:bg-background focus:p-2"
      >
        Skip to content
      </a>
      <aside className="border-b border-border bg-muted/40 md:w-56 md:border-b-0 md:border-r">
        <div className="flex items-center justify-between p-4">
          <span className="font-semibold">lead-service</span>
          <Button
            variant="ghost"
            size="icon"
            className="md:hidden"
            aria-label="Menu"
            aria-expanded={navOpen}
            aria-controls="main-nav"
            onClick={() => setNavOpen((v) => !v)}
          >
            <Menu />
          </Button>
        </div>
        <nav id="main-nav" aria-label="Main" className={cn('px-2 pb-4 md:block', navOpen ? 'block' : 'hidden')}>
          {(['Workspace', 'Administration'] as const).map((group) => {
            const items = nav.filter((item) => item.group === group);
            if (!items.length) return null;
            const grouped = nav.some((item) => item.group !== group);
            const headingId = `nav-${group.toLowerCase()}`;
            return (
              <div key={group} className="mb-3">
                {/* A group's name only where there are two groups: a client user's navigation is one list. */}
                {grouped && (
                  <p id={headingId} className="px-3 pb-1 text-xs font-medium uppercase text-muted-foreground">
                    {group}
                  </p>
                )}
                <ul className="flex flex-col gap-1" aria-labelledby={grouped ? headingId : undefined}>
                  {items.map(({ to, label, icon: Icon }) => (
                    <li key={to}>
                      <Link
                        to={to}
                        onClick={() => setNavOpen(false)}
                        className="flex items-center gap-2 rounded-md px-3 py-2 text-sm hover:bg-accent"
                        activeProps={{
                          className: 'bg-accent font-medium text-accent-foreground',
                          'aria-current': 'page',
                        }}
                      >
                        <Icon className="size-4" aria-hidden /> {label}
                      </Link>
                    </li>
                  ))}
                </ul>
              </div>
            );
          })}
        </nav>
      </aside>
      <div className="flex min-w-0 flex-1 flex-col">
        <header className="flex flex-wrap items-center justify-between gap-3 border-b border-border px-4 py-2">
          <div className="flex flex-wrap items-center gap-3">
            {me.role === 'super_admin' && <ClientSwitcher value={actingFor ?? ''} onChoose={actFor} />}
            <LiveIndicator state={live} />
          </div>
          <div className="flex items-center gap-3 text-sm">
            <Button variant="outline" size="sm" onClick={openPalette} aria-keyshortcuts="Control+K /">
              <Search /> Search <kbd className="hidden font-mono text-xs text-muted-foreground sm:inline">Ctrl K</kbd>
            </Button>
            <span className="text-muted-foreground">
              {me.email} · {me.role.replace('_', ' ')}
            </span>
            <Button variant="ghost" size="sm" onClick={() => void leave()}>
              <LogOut /> Sign out
            </Button>
          </div>
        </header>
        {outage && (
          <div role="alert" className="border-b border-warning bg-warning/10 px-4 py-2 text-sm">
            {describeError(outage)} The console retries on its own; what you submitted is kept.
          </div>
        )}
        <main id="main" ref={main} tabIndex={-1} className="min-w-0 flex-1 p-4 outline-none md:p-6">
          {me.role === 'super_admin' && !actingFor && !clientFree ? <ChooseClient onChoose={actFor} /> : <Outlet />}
        </main>
      </div>
      <Shortcuts onOpenPalette={openPalette} />
      {palette.loaded && (
        <Suspense fallback={null}>
          <CommandPalette
            open={palette.open}
            onOpenChange={(open) => setPalette((p) => ({ ...p, open }))}
            pages={nav}
          />
        </Suspense>
      )}
    </div>
  );
}
