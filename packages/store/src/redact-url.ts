const SECRET_KEY = /pass|secret|token|key|auth|cred/i;

/**
 * `url` safe to show in a message or a log: a password becomes `***` (for any scheme but `postgres:` /
 * `postgresql:` the whole user info does, since some schemes carry a token there), and so do the values of
 * query keys that look secret (`password`, `sslkey`, `token`, ...). A string that is not a URL keeps
 * nothing between `://` and the last `@`. Never throws.
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url.replace(/(:\/\/)[^/?#]*@/, '$1***@');
  }
  const keepUser = parsed.protocol === 'postgres:' || parsed.protocol === 'postgresql:';
  if (!keepUser && (parsed.username !== '' || parsed.password !== '')) {
    parsed.username = '***';
    parsed.password = '';
  } else if (parsed.password !== '') parsed.password = '***';
  for (const key of [...parsed.searchParams.keys()]) {
    if (SECRET_KEY.test(key)) parsed.searchParams.set(key, '***');
  }
  return parsed.href;
}
