// The console's shell: loads the server's facts, asks for credentials when the server checks them,
// then shows the navigation and the page the URL names (or says that there is no such page).
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { loadConfig, runtimeConfig } from './api/client';
import { loadCredentials, loadIdentity, principalName } from './api/credentials';
import { describeError } from './components/ui';
import { HOME, PAGES } from './pages/index';
import { SettingsPage } from './pages/settings';
import { SignInPage } from './pages/sign-in';
import { Link, navigate, useLocation } from './router';
import 'uplot/dist/uPlot.min.css';
import './styles.css';

function NotFound({ path }: { path: string }) {
  return (
    <section class="not-found">
      <h1>No such page</h1>
      <p>
        The console has no page at <code>/console{path}</code>. Go to the <Link to={`/${HOME}`}>model registry</Link>, or
        pick a page above.
      </p>
    </section>
  );
}

function App({ onSignOut }: { onSignOut: () => void }) {
  const loc = useLocation();
  const first = loc.segments[0] ?? '';
  const page = PAGES.find((p) => p.path === first);
  useEffect(() => {
    if (first === '') navigate(`/${HOME}`, { replace: true });
  }, [first]);
  useEffect(() => {
    document.title = `${page?.nav ?? (page ? 'Slipway' : 'Not found')} · Slipway console`;
  }, [page]);
  const Page = page?.component;
  const creds = loadCredentials();
  const who = loadIdentity();
  return (
    <>
      <header class="top">
        <Link to={`/${HOME}`} class="brand">
          Slipway
        </Link>
        <nav>
          {PAGES.filter((p) => p.nav).map((p) => (
            <Link key={p.path} to={`/${p.path}`} class={p.path === first ? 'active' : ''}>
              {p.nav}
            </Link>
          ))}
        </nav>
        <Link
          to="/settings"
          class={`settings-link ${first === 'settings' ? 'active' : ''}`}
          title={who?.arn ?? (creds ? `access key ${creds.accessKeyId}` : 'Settings and sign-in')}
        >
          {creds ? (principalName(who?.arn) ?? creds.accessKeyId) : 'Sign in'}
        </Link>
      </header>
      <main>
        {first === 'settings' ? <SettingsPage onSignOut={onSignOut} /> : Page ? <Page /> : first ? <NotFound path={loc.path} /> : null}
      </main>
    </>
  );
}

function Boot() {
  const [state, setState] = useState<'loading' | 'ready' | Error>('loading');
  const [, signedIn] = useState(0);
  useEffect(() => {
    loadConfig().then(
      () => setState('ready'),
      (err) => setState(err instanceof Error ? err : new Error(String(err))),
    );
  }, []);
  if (state === 'loading') return null;
  if (state instanceof Error) return <div class="error">Could not start the console: {describeError(state)}</div>;
  const again = () => signedIn((n) => n + 1);
  if (runtimeConfig().authentication === 'sigv4' && !loadCredentials()) return <SignInPage onSignedIn={again} />;
  return <App onSignOut={again} />;
}

render(<Boot />, document.getElementById('app')!);
