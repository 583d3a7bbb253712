/**
 * The server's event stream as an Observable: each Server-Sent Event's JSON record, and a
 * `connection` record when the stream opens or drops (EventSource reconnects by itself, and the
 * server then sends the current run again from its `batch` record, so nothing is applied twice).
 *
 * @module
 */
import { Observable } from 'rxjs';
import type { ConnectionRecord } from '../page-state.js';
import type { StreamRecord } from '../run-records.js';

/** Opens the stream on subscribe and closes it on unsubscribe. */
export function serverEvents(url: string): Observable<StreamRecord | ConnectionRecord> {
  return new Observable((subscriber) => {
    const source = new EventSource(url);
    source.onopen = () => subscriber.next({ type: 'connection', open: true });
    source.onerror = () => subscriber.next({ type: 'connection', open: false });
    source.onmessage = (message: MessageEvent<string>) => {
      try {
        subscriber.next(JSON.parse(message.data) as StreamRecord);
      } catch (err) {
        subscriber.error(err);
      }
    };
    return () => source.close();
  });
}
