import { useEffect, useState } from 'react';
import { clearToken, getToken, initToken, onUnauthorized } from '../api/client';
import { Link } from '../components/common';
import { BuilderPage, NoTokenPage, NotFoundPage } from '../pages/OtherPages';
import { RunListPage } from '../pages/RunListPage';
import { RunPage } from '../pages/RunPage';
import { parseRoute, useLocation } from './router';

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
  // The #token=… address opened in a tab that already shows the app (the page asking for it) changes only the
  // fragment: the browser does not load the page again, so the token is taken here and the pages drawn afresh.
  const [, setTokenEpoch] = useState(0);
  useEffect(() => {
    const onHash = () => {
      if (!new URLSearchParams(window.location.hash.slice(1)).has('token')) return;
      initToken();
      setRefused(false);
      setTokenEpoch((n) => n + 1);
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  const route = parseRoute(pathname);
  let page;
  if (route.page === 'builder') page = <BuilderPage name={route.name} />;
  else if (refused || !getToken()) page = <NoTokenPage refused={refused} />;
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
