/**
 * The buttons' requests: a POST to the server, as an Observable of the error message to show
 * ("" when the server took it).
 *
 * @module
 */
import { catchError, from, map, of, switchMap, type Observable } from 'rxjs';

/**
 * POSTs to `path`, with `body` as JSON when given; emits "" on a 2xx, else the server's `error`
 * (or the status), then completes.
 */
export function postAction(path: string, body?: unknown): Observable<string> {
  const init: RequestInit =
    body === undefined
      ? { method: 'POST' }
      : {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        };
  return from(fetch(path, init)).pipe(
    switchMap((response) =>
      response.ok
        ? of('')
        : from(response.json() as Promise<{ error?: string }>).pipe(
            map((body) => body.error ?? `${response.status} ${response.statusText}`),
            catchError(() => of(`${response.status} ${response.statusText}`)),
          ),
    ),
    catchError((err: unknown) => of(`the server cannot be reached: ${(err as Error).message}`)),
  );
}
