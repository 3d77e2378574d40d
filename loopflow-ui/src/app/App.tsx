import { lazy, Suspense, useEffect, useState } from 'react';
import { clearToken, getToken, initToken, onUnauthorized } from '../api/client';
import { Link, Loading } from '../components/common';
import { NoTokenPage, NotFoundPage } from '../pages/OtherPages';
import { RunListPage } from '../pages/RunListPage';
import { RunPage } from '../pages/RunPage';
import { parseRoute, useLocation } from './router';

// The builder (its canvas, CodeMirror and the YAML library) is loaded only when it is opened, so the run viewer's pages
// do not carry it.
const BuilderPage = lazy(() => import('../pages/BuilderPage').then((m) => ({ default: m.BuilderPage })));

export function App() {
  const { pathname } = useLocation();
  const [refused, setRefused] = useState(false);
  useEffect(
    () =>
      onUnauthorized(() => {
        clearToken();
        setRefused(true);
      }),
    [],
  );
  // Opening the server's address in a tab that already shows the app changes only the fragment: no page load, so
  // the token is taken from it here.
  const [, setTokenVersion] = useState(0);
  useEffect(() => {
    const onHash = () => {
      const before = getToken();
      const after = initToken();
      if (after && after !== before) {
        setRefused(false);
        setTokenVersion((v) => v + 1);
      } else if (after && refused) {
        setRefused(false);
      }
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, [refused]);
  const route = parseRoute(pathname);
  let page;
  if (refused || !getToken()) page = <NoTokenPage refused={refused} />;
  else if (route.page === 'builder')
    page = (
      <Suspense fallback={<Loading what="the builder" />}>
        <BuilderPage name={route.name} />
      </Suspense>
    );
  else if (route.page === 'runs') page = <RunListPage />;
  else if (route.page === 'run') page = <RunPage key={route.id} id={route.id} />;
  else page = <NotFoundPage path={route.path} />;
  return (
    <>
      <a href="#content" className="skip-link">
        Skip to content
      </a>
      <header className="topbar">
        <Link href="/" className="brand">
          loopflow
        </Link>
        <nav aria-label="main">
          <Link href="/">Runs</Link>
          <Link href="/builder">Builder</Link>
        </nav>
      </header>
      <div id="content">{page}</div>
    </>
  );
}
