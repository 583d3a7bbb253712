/**
 * The web front in a real browser: Debian's Chromium driven by playwright-core runs a turn of the
 * bundled tools from the page, and the page shows what a user relies on: every row reaching its
 * end, progress bars moving through intermediate values, a resource chain's bars never
 * overlapping on the timeline, and cancels (one call, then the batch) marked as such.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { takeWhile } from 'rxjs';
import { ToolSet, type OutputItem } from '../../index.js';
import { bundledTools } from '../../cli/tools/index.js';
import { liveTurn } from '../../cli/ui/live-turn.js';
import { replayRun } from '../../cli/ui/replay-run.js';
import type { RunRecord } from '../../cli/ui/run-records.js';
import { startUiServer, type UiServer } from '../../cli/ui/ui-server.js';
import { root } from '../support/cli.js';
import { launchChromium, type TestBrowser } from '../support/ui.js';
import { scaled } from '../support/time.js';

const call = (id: string, name: string, args: object): OutputItem => ({
  type: 'function_call',
  call_id: id,
  name,
  arguments: JSON.stringify(args),
});

/** Bundled tools only: a bash chain on shell:session, numeric progress, a long count to cancel. */
const TURN: OutputItem[] = [
  call('build', 'bash', { command: 'echo building; sleep 0.3; echo built' }),
  call('test', 'bash', { command: 'echo testing; sleep 0.3; echo 3 passed' }),
  call('count', 'slow_count', { to: 10, step_ms: 120 }),
  call('long', 'slow_count', { to: 1000, step_ms: 50 }),
  call('list', 'list_dir', { path: 'cli/tools' }),
  call('missing', 'read_file', { path: 'examples/no-such-file.txt' }),
  call('deploy', 'bash', { command: 'sleep 0.2; echo deployed' }),
];
const CHAIN = [0, 1, 6];
const COUNT = 2;
const LONG = 3;
const FINAL = ['done', 'failed', 'cancelled'];

interface Bar {
  index: number;
  lane: string;
  start: number;
  end: number;
  left: number;
  right: number;
}

async function phases(page: Page): Promise<string[]> {
  return page.$$eval('tr[data-call-index]', (rows) =>
    rows.map((row) => row.getAttribute('data-phase') ?? ''),
  );
}

async function bars(page: Page): Promise<Bar[]> {
  return page.$$eval('.span[data-call-index]', (spans) =>
    spans.map((span) => {
      const box = span.getBoundingClientRect();
      return {
        index: Number(span.getAttribute('data-call-index')),
        lane: span.getAttribute('data-lane') ?? '',
        start: Number(span.getAttribute('data-start')),
        end: Number(span.getAttribute('data-end') ?? NaN),
        left: box.left,
        right: box.right,
      };
    }),
  );
}

describe('the web front in Chromium', function () {
  this.timeout(scaled(60_000));
  let server: UiServer;
  let chrome: TestBrowser;
  let page: Page;
  const shots = join(root, 'test-output');

  before(async () => {
    chrome = await launchChromium();
    server = await startUiServer({
      source: liveTurn(TURN, new ToolSet(bundledTools), { title: 'browser-test turn' }),
    });
    page = await chrome.context.newPage();
    await mkdir(shots, { recursive: true });
  });

  after(async () => {
    await chrome?.close();
    await server?.close();
  });

  it('shows the turn, runs it, and reaches every row’s end with moving progress', async () => {
    await page.goto(server.url.href);
    await page.waitForSelector('[data-action="run"]:not([disabled])');
    expect(await phases(page)).to.deep.equal(Array(TURN.length).fill('waiting'));
    expect(await page.textContent('[data-source]')).to.equal('browser-test turn');

    // Every value the progress bars take, as the page sets them.
    await page.evaluate(() => {
      const seen: Record<string, string[]> = {};
      (window as unknown as { seen: typeof seen }).seen = seen;
      new MutationObserver((mutations) => {
        for (const m of mutations) {
          const bar = m.target as Element;
          const value = bar.getAttribute('data-progress');
          const index = bar.closest('tr')?.getAttribute('data-call-index');
          if (value !== null && index != null) (seen[index] ??= []).push(value);
        }
      }).observe(document.body, {
        subtree: true,
        attributes: true,
        attributeFilter: ['data-progress'],
      });
    });

    await page.click('[data-action="run"]');
    await page.waitForFunction(
      (count) =>
        Number(
          document
            .querySelector(`tr[data-call-index="${count}"] .bar`)
            ?.getAttribute('data-progress') ?? 0,
        ) >= 0.3,
      COUNT,
    );
    await page.screenshot({ path: join(shots, 'ui-browser-running.png'), fullPage: true });
    await page.waitForFunction(
      ([long, final]) =>
        Array.from(document.querySelectorAll('tr[data-call-index]')).every(
          (row) =>
            row.getAttribute('data-call-index') === String(long) ||
            final.includes(row.getAttribute('data-phase') ?? ''),
        ),
      [LONG, FINAL] as const,
    );
    expect(await page.getAttribute(`tr[data-call-index="${LONG}"]`, 'data-phase')).to.equal(
      'running',
    );

    // Cancel the long count from its row: the row says cancelled, and so every row has ended.
    await page.click(`button[data-action="cancel-call"][data-call-index="${LONG}"]`);
    await page.waitForSelector(`tr[data-call-index="${LONG}"][data-phase="cancelled"]`);
    await page.waitForSelector('[data-batch-phase="finished"]');
    expect(await phases(page)).to.deep.equal([
      'done',
      'done',
      'done',
      'cancelled',
      'done',
      'failed',
      'done',
    ]);
    expect(await page.textContent(`tr[data-call-index="${LONG}"] td.output`)).to.contain(
      'call cancelled by the user',
    );
    expect(await page.textContent('tr[data-call-index="4"] td.output')).to.contain('bash.ts');
    expect(await page.textContent('tr[data-call-index="0"] td.output')).to.contain('built');

    const seen = await page.evaluate(
      () => (window as unknown as { seen: Record<string, string[]> }).seen,
    );
    const counted = (seen[String(COUNT)] ?? []).map(Number);
    const between = new Set(counted.filter((v) => v > 0 && v < 1));
    expect(between.size, `observed ${counted.join(' ')}`).to.be.at.least(3);
    expect(counted.at(-1)).to.equal(1);
    expect(counted).to.deep.equal([...counted].sort((a, b) => a - b));
    const long = (seen[String(LONG)] ?? []).map(Number);
    expect(long.length).to.be.at.least(2);
    expect(Math.max(...long))
      .to.be.greaterThan(0)
      .and.lessThan(1);

    await page.screenshot({ path: join(shots, 'ui-browser.png'), fullPage: true });
  });

  it('draws the resource chain in one lane whose bars never overlap', async () => {
    const drawn = await bars(page);
    const chain = drawn
      .filter((bar) => CHAIN.includes(bar.index))
      .sort((a, b) => a.start - b.start);
    expect(chain.map((bar) => bar.index)).to.deep.equal(CHAIN);
    expect(new Set(chain.map((bar) => bar.lane))).to.deep.equal(new Set(['shell:session']));
    for (let i = 1; i < chain.length; i++) {
      expect(chain[i]!.start, 'a chained call starts after the one before ends').to.be.at.least(
        chain[i - 1]!.end,
      );
      expect(chain[i]!.left, 'and its bar is drawn after it').to.be.at.least(
        chain[i - 1]!.right - 1,
      );
    }
    // The calls without a resource ran alongside: their slots overlap in time.
    const free = drawn.filter((bar) => bar.lane.startsWith('slot-'));
    expect(new Set(free.map((bar) => bar.lane)).size).to.be.at.least(2);
  });

  it('runs the turn again and cancels the batch: the tools stop and the rows say cancelled', async () => {
    await page.click('[data-action="run"]');
    await page.waitForSelector(`tr[data-call-index="${LONG}"][data-phase="running"]`);
    await page.waitForSelector(`tr[data-call-index="${LONG}"] .bar[data-progress]`);
    await page.click('[data-action="cancel-batch"]');
    await page.waitForSelector('[data-batch-phase="finished"]');
    const after = await phases(page);
    expect(after[LONG]).to.equal('cancelled');
    expect(after.every((phase) => FINAL.includes(phase))).to.equal(true);
    expect(await page.textContent(`tr[data-call-index="${LONG}"] td.output`)).to.contain(
      'call cancelled',
    );
    expect(await page.isDisabled('[data-action="cancel-batch"]')).to.equal(true);
    expect(await page.textContent('[data-action="run"]')).to.equal('Run again');
    await page.screenshot({ path: join(shots, 'ui-browser-cancelled.png'), fullPage: true });
  });

  it('replays the saved run in the same page, without cancel buttons', async () => {
    const live = await phases(page);
    const saved: RunRecord[] = [];
    server.runs.records.pipe(takeWhile((r) => r.type !== 'output', true)).subscribe((r) => {
      saved.push(r);
    });
    expect(saved.at(-1)?.type).to.equal('output');
    const replay = await startUiServer({
      source: replayRun(saved, { title: 'run.jsonl', speed: 2 }),
    });
    try {
      const other = await chrome.context.newPage();
      await other.goto(replay.url.href);
      await other.waitForSelector('[data-action="run"]:not([disabled])');
      expect(await other.textContent('[data-mode]')).to.equal('replay');
      expect(await other.textContent('[data-action="run"]')).to.equal('Replay the turn');
      expect(await other.isVisible('[data-action="cancel-batch"]')).to.equal(false);
      await other.click('[data-action="run"]');
      await other.waitForSelector('[data-batch-phase="finished"]');
      expect(await phases(other)).to.deep.equal(live);
      expect(await other.isVisible('button[data-action="cancel-call"]')).to.equal(false);
      await other.screenshot({ path: join(shots, 'ui-browser-replay.png'), fullPage: true });
      await other.close();
    } finally {
      await replay.close();
    }
  });
});
