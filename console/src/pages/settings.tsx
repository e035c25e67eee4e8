// Settings: the credentials this tab signs its requests with (kept in sessionStorage).
import { useState } from 'preact/hooks';
import { canSign, credentialsChanged, runtimeConfig } from '../api/client';
import { loadCredentials, saveCredentials } from '../api/credentials';

export function SettingsPage() {
  const saved = loadCredentials();
  const [id, setId] = useState(saved?.accessKeyId ?? '');
  const [secret, setSecret] = useState(saved?.secretAccessKey ?? '');
  const [token, setToken] = useState(saved?.sessionToken ?? '');
  const [note, setNote] = useState('');
  const cfg = runtimeConfig();
  return (
    <section>
      <h1>Settings</h1>
      <form
        class="settings"
        onSubmit={(e) => {
          e.preventDefault();
          saveCredentials(
            id && secret ? { accessKeyId: id, secretAccessKey: secret, sessionToken: token || undefined } : undefined,
          );
          credentialsChanged();
          setNote(
            id && secret ? 'Saved for this tab.' : 'Cleared: requests are signed with the placeholder key test/test.',
          );
        }}
      >
        <p>
          The console signs every request with AWS Signature V4, like any SDK. The credentials stay in this tab (session
          storage) and are forgotten when it closes.
        </p>
        {!canSign() ? (
          <p class="error">
            This page is not a secure context (https or localhost), so the browser cannot sign requests.
          </p>
        ) : null}
        <label>
          Access key id
          <input name="accessKeyId" value={id} autocomplete="off" onInput={(e) => setId(e.currentTarget.value)} />
        </label>
        <label>
          Secret access key
          <input
            name="secretAccessKey"
            type="password"
            value={secret}
            autocomplete="off"
            onInput={(e) => setSecret(e.currentTarget.value)}
          />
        </label>
        <label>
          Session token (optional)
          <input
            name="sessionToken"
            value={token}
            autocomplete="off"
            onInput={(e) => setToken(e.currentTarget.value)}
          />
        </label>
        <div class="buttons">
          <button type="submit">Save</button>
        </div>
        {note ? <p class="muted">{note}</p> : null}
      </form>
      <dl class="facts">
        <dt>Region</dt>
        <dd>{cfg.region}</dd>
        <dt>Account</dt>
        <dd>{cfg.accountId}</dd>
        <dt>Graph port</dt>
        <dd>{cfg.graphPort}</dd>
        <dt>Slipway</dt>
        <dd>{cfg.version}</dd>
      </dl>
    </section>
  );
}
