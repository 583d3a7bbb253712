/**
 * Helpers of the web front's tests: a Chromium under playwright-core (see support/browser.ts for
 * which), and a reader of the server's event stream.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import type { StreamRecord } from '../../cli/ui/run-records.js';
import { findChromium } from './browser.js';

/** A headless Chromium with a fresh profile; `close()` also removes the profile. */
export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Launches a Chromium ({@link findChromium}) headless with a profile of its own and no background
 * traffic. Throws when none can be found: the browser test must not pass unseen.
 */
export async function launchChromium(): Promise<TestBrowser> {
  const found = await findChromium();
  const profile = await mkdtemp(join(tmpdir(), 'agenttool-chromium-'));
  // A persistent context is how playwright takes a --user-data-dir: this one is new and removed.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: found.executablePath,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...found.args,
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** The records of an event stream, as they arrive, with a way to wait for one. */
export class EventStreamReader {
  readonly records: StreamRecord[] = [];
  private readonly controller = new AbortController();
  private waiters: (() => void)[] = [];
  readonly done: Promise<void>;

  constructor(url: URL | string) {
    this.done = this.read(url);
  }

  /** Resolves with the first record (from the start) for which `test` holds. */
  async waitFor(
    test: (record: StreamRecord) => boolean,
    timeoutMs = 10_000,
  ): Promise<StreamRecord> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.records.find(test);
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error('no such record in time');
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  close(): void {
    this.controller.abort();
  }

  private async read(url: URL | string): Promise<void> {
    const response = await fetch(url, { signal: this.controller.signal });
    if (response.headers.get('content-type')?.startsWith('text/event-stream') !== true)
      throw new Error(`not an event stream: ${response.headers.get('content-type')}`);
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      const reader = response.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const message = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = message
            .split('\n')
            .filter((line) => line.startsWith('data: '))
            .map((line) => line.slice(6))
            .join('\n');
          if (data !== '') this.records.push(JSON.parse(data) as StreamRecord);
        }
        const waiters = this.waiters;
        this.waiters = [];
        for (const wake of waiters) wake();
      }
    } catch (err) {
      if ((err as Error).name !== 'AbortError') throw err;
    }
  }
}
