// The console's shell: loads the server's facts, then shows the navigation and the page the URL names.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { loadConfig } from './api/client';
import { loadCredentials } from './api/credentials';
import { describeError } from './components/ui';
import { HOME, PAGES } from './pages/index';
import { Link, navigate, useLocation } from './router';
import 'uplot/dist/uPlot.min.css';
import './styles.css';

function App() {
  const loc = useLocation();
  const first = loc.segments[0] ?? '';
  const page = PAGES.find((p) => p.path === first);
  useEffect(() => {
    if (!page) navigate(`/${HOME}`, { replace: true });
  }, [page]);
  useEffect(() => {
    document.title = `${page?.nav ?? 'Slipway'} · Slipway console`;
  }, [page]);
  const Page = page?.component;
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
        <Link to="/settings" class={`settings-link ${first === 'settings' ? 'active' : ''}`} title="Credentials">
          {loadCredentials() ? loadCredentials()!.accessKeyId : 'Sign in'}
        </Link>
      </header>
      <main>{Page ? <Page /> : null}</main>
    </>
  );
}

function Boot() {
  const [state, setState] = useState<'loading' | 'ready' | Error>('loading');
  useEffect(() => {
    loadConfig().then(
      () => setState('ready'),
      (err) => setState(err instanceof Error ? err : new Error(String(err))),
    );
  }, []);
  if (state === 'loading') return null;
  if (state instanceof Error) return <div class="error">Could not start the console: {describeError(state)}</div>;
  return <App />;
}

render(<Boot />, document.getElementById('app')!);
