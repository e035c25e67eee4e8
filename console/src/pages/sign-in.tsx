// Sign in: the access key and secret the console signs with, checked with a signed call (STS
// GetCallerIdentity) before they are kept, so a wrong secret is said at once rather than on the next
// page. Shown instead of the pages when the server has a credentials file and this tab has no keys.
import { useState } from 'preact/hooks';
import { ApiError, callerIdentity, canSign, credentialsChanged, refusedCredentials } from '../api/client';
import { saveCredentials } from '../api/credentials';

/** Checks and keeps credentials; calls `onSignedIn` once the server accepted them. */
export function SignInForm({ onSignedIn, intro }: { onSignedIn: () => void; intro?: string }) {
  const [id, setId] = useState('');
  const [secret, setSecret] = useState('');
  const [token, setToken] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="settings sign-in"
      onSubmit={async (e) => {
        e.preventDefault();
        setError('');
        if (!id.trim() || !secret) {
          setError('Enter an access key id and its secret access key.');
          return;
        }
        const creds = { accessKeyId: id.trim(), secretAccessKey: secret, sessionToken: token.trim() || undefined };
        setBusy(true);
        try {
          const who = await callerIdentity(creds);
          saveCredentials(creds, { arn: who.arn, account: who.account });
          credentialsChanged();
          onSignedIn();
        } catch (err) {
          setError(
            refusedCredentials(err)
              ? `The server does not accept these credentials (${(err as ApiError).code}): check the access key id and the secret.`
              : `Could not check the credentials: ${err instanceof ApiError ? `${err.code}: ${err.message}` : String(err)}`,
          );
        } finally {
          setBusy(false);
        }
      }}
    >
      <p>
        {intro ??
          'The console signs every request with AWS Signature V4, like any SDK. The credentials stay in this tab (session storage) and are forgotten when it closes.'}
      </p>
      {!canSign() ? (
        <p class="error">This page is not a secure context (https or localhost), so the browser cannot sign requests.</p>
      ) : null}
      <label>
        Access key id
        <input name="accessKeyId" value={id} autocomplete="username" onInput={(e) => setId(e.currentTarget.value)} />
      </label>
      <label>
        Secret access key
        <input
          name="secretAccessKey"
          type="password"
          value={secret}
          autocomplete="current-password"
          onInput={(e) => setSecret(e.currentTarget.value)}
        />
      </label>
      <label>
        Session token (temporary credentials only)
        <input name="sessionToken" value={token} autocomplete="off" onInput={(e) => setToken(e.currentTarget.value)} />
      </label>
      <div class="buttons">
        <button type="submit" disabled={busy}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </div>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
    </form>
  );
}

/** The whole-page sign-in a server with a credentials file opens with. */
export function SignInPage({ onSignedIn }: { onSignedIn: () => void }) {
  return (
    <main class="sign-in-page">
      <h1>Sign in to Slipway</h1>
      <SignInForm
        onSignedIn={onSignedIn}
        intro="This server checks every request against its credentials file. Sign in with your access key: the console signs each request with it (AWS Signature V4), keeps it in this tab only and forgets it when the tab closes."
      />
    </main>
  );
}
