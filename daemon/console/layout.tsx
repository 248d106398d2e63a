import type { Child } from 'hono/jsx';

/** The console's pages, in navigation order: path under /console/ and title. */
const PAGES = [
  { path: '', id: 'overview', title: 'Overview' },
  { path: 'runtimes', id: 'runtimes', title: 'Runtimes' },
  { path: 'conversations', id: 'conversations', title: 'Conversations' },
  { path: 'turns', id: 'turns', title: 'Turns' },
  { path: 'tasks', id: 'tasks', title: 'Tasks' },
  { path: 'activity', id: 'activity', title: 'Activity' },
  { path: 'approvals', id: 'approvals', title: 'Approvals' },
  { path: 'client-tools', id: 'client-tools', title: 'Client tools' },
  { path: 'tools', id: 'tools', title: 'Declared tools' },
  { path: 'context-cost', id: 'context-cost', title: 'Context cost' },
  { path: 'devices', id: 'devices', title: 'Devices' },
] as const;

export type PageId = (typeof PAGES)[number]['id'];

/** The page shell: navigation, then the body in a <main> that the client script refreshes from `live` (an SSE URL). */
export function Layout(props: {
  page: PageId | 'login' | 'detail';
  title: string;
  live?: string;
  children: Child;
}) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title} · agentteam console</title>
        <link rel="stylesheet" href="/console/assets/console.css" />
        <script src="/console/assets/console.js" defer></script>
      </head>
      <body>
        <header>
          <strong>agentteam</strong>
          {props.page !== 'login' && (
            <nav aria-label="Console pages">
              {PAGES.map((p) => (
                <a
                  href={`/console/${p.path}`}
                  aria-current={p.id === props.page ? 'page' : undefined}
                >
                  {p.title}
                </a>
              ))}
            </nav>
          )}
        </header>
        <main id="main" data-live={props.live}>
          {props.children}
        </main>
      </body>
    </html>
  );
}

/** The CSRF token every state-changing form carries. */
export function Csrf(props: { token: string }) {
  return <input type="hidden" name="csrf" value={props.token} />;
}
