/**
 * Finding a Chromium for the browser tests the way playwright users expect, with nothing
 * installed by hand:
 *
 * 1. `CHROMIUM_PATH` or `PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH`, when set (it must exist);
 * 2. the system's browser: /usr/bin/chromium (Debian's, what .ci/run installs), chromium-browser,
 *    google-chrome, google-chrome-stable, on the PATH or in /usr/bin;
 * 3. the Chromium inside the `@sparticuz/chromium` npm package (a dev dependency), extracted to
 *    the system's temporary folder on first use.
 *
 * `CHROMIUM_PATH=@sparticuz/chromium` skips straight to the third.
 */
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The npm package that ships a Chromium binary. */
export const PACKAGED_CHROMIUM = '@sparticuz/chromium';

const SYSTEM_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

/** A Chromium to launch: its path, and arguments it needs beyond playwright's. */
export interface FoundChromium {
  executablePath: string;
  /** Where it came from: `env`, `system` or the npm package's name. */
  source: string;
  args: string[];
}

/** Finds a Chromium, in the order above; throws, saying what was tried, when none is found. */
export async function findChromium(env: NodeJS.ProcessEnv = process.env): Promise<FoundChromium> {
  const named = env['CHROMIUM_PATH'] || env['PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH'];
  if (named !== undefined && named !== PACKAGED_CHROMIUM) {
    if (!existsSync(named))
      throw new Error(`the Chromium named by the environment is missing: ${named}`);
    return { executablePath: named, source: 'env', args: [] };
  }
  if (named === undefined) {
    const folders = [...(env['PATH'] ?? '').split(delimiter).filter(Boolean), '/usr/bin'];
    for (const name of SYSTEM_NAMES)
      for (const folder of folders) {
        const path = join(folder, name);
        if (existsSync(path)) return { executablePath: path, source: 'system', args: [] };
      }
  }
  const { default: packaged } = await import('@sparticuz/chromium');
  // Its software renderer only: no GPU process to start in a container.
  packaged.setGraphicsMode = false;
  const executablePath = await packaged.executablePath();
  return { executablePath, source: PACKAGED_CHROMIUM, args: [] };
}
