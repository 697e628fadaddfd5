/**
 * The signed-in session: the access token, kept in `sessionStorage` (this tab only, gone when it
 * closes; never in a cookie, so no other site can make the browser send it).
 */
const key = "docqa.token";

/** The stored token, if any. */
export function storedToken(): string | undefined {
  return sessionStorage.getItem(key) ?? undefined;
}

/** Stores the token, or forgets it. */
export function storeToken(token: string | undefined): void {
  if (token) sessionStorage.setItem(key, token);
  else sessionStorage.removeItem(key);
}
