// Settings: who this tab is signed in as (STS GetCallerIdentity's ARN), signing out or in as someone
// else, and the server's facts.
import { useState } from 'preact/hooks';
import { credentialsChanged, runtimeConfig } from '../api/client';
import { loadCredentials, loadIdentity, saveCredentials } from '../api/credentials';
import { SignInForm } from './sign-in';

export function SettingsPage({ onSignOut }: { onSignOut?: () => void }) {
  const cfg = runtimeConfig();
  const [, refresh] = useState(0);
  const creds = loadCredentials();
  const who = loadIdentity();
  return (
    <section>
      <h1>Settings</h1>
      {creds ? (
        <div class="signed-in">
          <p>
            Signed in as <strong data-testid="principal-arn">{who?.arn ?? creds.accessKeyId}</strong>
            {who?.arn ? <span class="muted"> (access key {creds.accessKeyId})</span> : null}
          </p>
          <button
            type="button"
            onClick={() => {
              saveCredentials(undefined);
              credentialsChanged();
              refresh((n) => n + 1);
              onSignOut?.();
            }}
          >
            Sign out
          </button>
        </div>
      ) : (
        <p class="muted">
          {cfg.authentication === 'sigv4'
            ? 'Not signed in.'
            : 'This server accepts any request (no credentials file), so the console signs with a placeholder key. Sign in to act as a principal of your own.'}
        </p>
      )}
      <h2>{creds ? 'Sign in as someone else' : 'Sign in'}</h2>
      <SignInForm onSignedIn={() => refresh((n) => n + 1)} />
      <dl class="facts">
        <dt>Region</dt>
        <dd>{cfg.region}</dd>
        <dt>Account</dt>
        <dd>{cfg.accountId}</dd>
        <dt>Authentication</dt>
        <dd>{cfg.authentication === 'sigv4' ? 'SigV4 against the credentials file' : 'none (any signature is accepted)'}</dd>
        <dt>Graph port</dt>
        <dd>{cfg.graphPort}</dd>
        <dt>Slipway</dt>
        <dd>{cfg.version}</dd>
      </dl>
    </section>
  );
}
