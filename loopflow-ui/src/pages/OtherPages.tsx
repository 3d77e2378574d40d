// Pages with little to show: an unknown address, and the page shown without a token or when the server refused it.
import { KeyRound } from 'lucide-react';
import { Link } from '../components/common';

export function NotFoundPage({ path }: { path: string }) {
  return (
    <main className="page narrow">
      <h1>Page not found</h1>
      <p>
        There is no page at <code>{path}</code>.
      </p>
      <p>
        <Link href="/">Back to the runs</Link>
      </p>
    </main>
  );
}

export function NoTokenPage({ refused }: { refused: boolean }) {
  return (
    <main className="page narrow" data-testid={refused ? 'token-refused' : 'no-token'}>
      <h1>
        <KeyRound aria-hidden="true" size={22} /> {refused ? 'The server refused the access token' : 'Open loopflow with its access link'}
      </h1>
      {refused ? (
        <p>
          The loopflow server answered 401: the token this page holds is not the server’s (it may have been restarted with
          another token).
        </p>
      ) : (
        <p>This page needs the access token of the loopflow server it belongs to, and it has none.</p>
      )}
      <p>
        When <code>loopflow server</code> starts, the first line it prints is the address of this app with the token in it, for
        example:
      </p>
      <pre className="example">http://127.0.0.1:8080/#token=…</pre>
      <p>
        Open that address (copy the whole line, <code>#token=</code> part included). The token is then kept for this browser tab
        only and removed from the address bar. Without the server’s output at hand, the token is the one given with{' '}
        <code>--token</code> or <code>LOOPFLOW_TOKEN</code>, or the one the server keeps under <code>LOOPFLOW_HOME</code>.
      </p>
    </main>
  );
}
