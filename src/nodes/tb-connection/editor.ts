/** tb-connection's dialog: the server, the way to sign in (credentials), TLS, the analytics service, the limits. */
import { connectionTest } from '../../editor/builder/dialogs';
import { dialog } from '../../editor/dialog/dialog';
import { forType, type EditorNode, type Validator } from '../../editor/dialog/for-type';
import { blank } from '../../editor/dialog/predicates';
import { MIGRATIONS } from './migrations';
import { ANALYTICS_AUTH, AUTH_MODES, TB_CONNECTION } from './settings';

const E = forType('tb-connection', { config: true });
const t = E.t;

function isHttpUrl(v: unknown): boolean {
  return /^https?:\/\/[^\s/?#]+(\/[^\s]*)?$/i.test(String(v || '').trim());
}
const AUTH_MODE = TB_CONNECTION.settings.authMode.default;
function authMode(node: EditorNode): unknown {
  return E.value(node, 'authMode') || AUTH_MODE;
}
function ownAnalyticsLogin(node: EditorNode): boolean {
  return !blank(E.value(node, 'analyticsUrl')) && E.value(node, 'analyticsAuth') === 'own';
}
// A credential needed while `inUse(node)`. Credentials are only known while the dialog is open (undefined
// otherwise): never flag what we cannot see.
function needed(inUse: (node: EditorNode) => boolean, key: string): Validator {
  return function (v, opt) {
    if (v === undefined || !inUse(this)) return true;
    return blank(v) ? t(key) : true;
  };
}
function forMode(mode: string): (node: EditorNode) => boolean {
  return (node) => E.value(node, 'authMode') === mode;
}

// Whether the runtime has this connection (loaded from it, or deployed since): its credentials are then stored
// there, out of the editor's sight until the dialog opens. RED.nodes.originalFlow() is the flow last loaded or
// deployed (3.1 to 5.x); `changed` is the fallback.
function deployed(node: EditorNode): boolean {
  const flow = typeof RED.nodes.originalFlow === 'function' ? RED.nodes.originalFlow() : undefined;
  if (!Array.isArray(flow)) return !node.changed;
  return flow.some((n: { id?: unknown } | null) => !!n && n.id === node.id);
}
// The credentials among `keys` that the connection lacks: the dialog's inputs while it is open; else what the
// editor holds (node.credentials: typed in, or fetched when the dialog opened, a stored password as
// has_password); else, for a connection that is not deployed (imported or pasted), all of them, because
// credentials never travel with a flow. A deployed one is trusted: the runtime has them and says when not.
function missing(node: EditorNode, keys: readonly string[]): string[] {
  const creds = node.credentials as Record<string, unknown> | undefined;
  return keys.filter((key) => {
    const el = E.input(key);
    if (el.length) return blank(el.val());
    if (creds) return blank(creds[key]) && !creds[`has_${key}`];
    return !deployed(node);
  });
}
// What each way to sign in needs, and what to say when it is missing. The editor never runs credential
// validators outside the dialog, so these checks sit on authMode and analyticsAuth: a connection without its
// credentials is flagged before deploy, as a missing required field is, and so are the nodes that use it.
const SIGN_IN: Record<string, { keys: string[]; message: string }> = {
  password: { keys: ['username', 'password'], message: 'tb-connection.errors.signInPassword' },
  apiKey: { keys: ['apiKey'], message: 'tb-connection.errors.signInApiKey' },
  token: { keys: ['token'], message: 'tb-connection.errors.signInToken' },
};
const signInReady: Validator = function (v, opt) {
  const mode = String(v === undefined ? AUTH_MODE : v);
  const need = Object.prototype.hasOwnProperty.call(SIGN_IN, mode) ? SIGN_IN[mode] : undefined;
  return need && missing(this, need.keys).length ? t(need.message) : true;
};
const analyticsSignInReady: Validator = function (v, opt) {
  if (v !== 'own' || blank(E.value(this, 'analyticsUrl'))) return true;
  return missing(this, ['analyticsUsername', 'analyticsPassword']).length
    ? t('tb-connection.errors.analyticsSignIn')
    : true;
};

export default dialog(E, {
  declaration: TB_CONNECTION,
  migrations: MIGRATIONS,
  // What the kinds of its settings do not say: the addresses, the sign-in each way needs, the TLS node, and the
  // timeouts, which may not be left empty (the numbers and the whole numbers are checked by their kind).
  validators: {
    url: function (v, opt) {
      return isHttpUrl(v) ? true : t('tb-connection.errors.url');
    },
    authMode: E.all(E.oneOf(AUTH_MODES, 'tb-connection.errors.authMode'), signInReady),
    tls: function (v, opt) {
      if (!v || v === '_ADD_' || E.value(this, 'usetls') === false) return true;
      const cfg = RED.nodes.node(String(v));
      if (!cfg) return t('tb-connection.errors.tlsMissing');
      return cfg.valid === false ? t('tb-connection.errors.tlsInvalid') : true;
    },
    timeout: E.duration('tb-connection.errors.timeout', 0, true),
    analyticsUrl: function (v, opt) {
      if (v === undefined) return true;
      return blank(v) || isHttpUrl(v) ? true : t('tb-connection.errors.analyticsUrl');
    },
    analyticsAuth: E.all(
      E.oneOf(ANALYTICS_AUTH, 'tb-connection.errors.analyticsAuth'),
      function (v, opt) {
        // The analytics service shares only a password login.
        if (v === 'same' && !blank(E.value(this, 'analyticsUrl')) && authMode(this) !== 'password')
          return t('tb-connection.errors.analyticsSame');
        return true;
      },
      analyticsSignInReady,
    ),
    reportTimeout: E.duration('tb-connection.errors.reportTimeout', 0, true),
    // The credentials.
    username: needed(forMode('password'), 'tb-connection.errors.username'),
    password: needed(forMode('password'), 'tb-connection.errors.password'),
    apiKey: needed(forMode('apiKey'), 'tb-connection.errors.apiKey'),
    token: E.all(
      function (v, opt) {
        const bearer = v !== undefined && E.value(this, 'authMode') === 'token' && /^\s*bearer\s/i.test(String(v));
        return bearer ? t('tb-connection.errors.tokenBearer') : true;
      },
      needed(forMode('token'), 'tb-connection.errors.token'),
    ),
    analyticsUsername: needed(ownAnalyticsLogin, 'tb-connection.errors.analyticsUsername'),
    analyticsPassword: needed(ownAnalyticsLogin, 'tb-connection.errors.analyticsPassword'),
  },
  unnamed: (s, tr) => String(s.url || tr('tb-connection.paletteLabel')),
  oneditprepare() {
    const node = this;
    // Left empty, these read their default (the retries: settings.js first), which the empty box shows.
    for (const prop of ['retries', 'retryBudget', 'maxResponseMB'] as const)
      E.input(prop).attr('placeholder', String(TB_CONNECTION.settings[prop].default));
    E.input('usetls').prop('checked', !!node.tls && node.tls !== '_ADD_');
    E.showRows(() => {
      const mode = authMode(node);
      const analytics = !blank(E.value(node, 'analyticsUrl'));
      return {
        '.tb-auth-password': mode === 'password',
        '.tb-auth-apiKey': mode === 'apiKey',
        '.tb-auth-token': mode === 'token',
        '#tb-row-tls': E.value(node, 'usetls'),
        '.tb-analytics-row': analytics,
        '.tb-analytics-own': ownAnalyticsLogin(node),
      };
    }, ['authMode', 'usetls', 'analyticsUrl', 'analyticsAuth']);
    connectionTest(
      '#tb-connection-test',
      () => String(node.id),
      () => !!node.changed,
    );
  },
  oneditsave() {
    if (!E.input('usetls').is(':checked')) E.input('tls').val('_ADD_');
    E.trim(['url', 'analyticsUrl']);
  },
});
