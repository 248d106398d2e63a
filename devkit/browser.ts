import { execFileSync } from 'node:child_process';
import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';

/** The Chromium the browser tests drive: Debian's package (or AGENTTEAM_CHROMIUM); null when none is installed. */
export function findChromium(): string | null {
  const env = process.env.AGENTTEAM_CHROMIUM;
  if (env) return existsSync(env) ? env : null;
  for (const p of ['/usr/bin/chromium', '/usr/bin/chromium-browser']) if (existsSync(p)) return p;
  try {
    const p = execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
    return p && existsSync(p) ? p : null;
  } catch {
    return null;
  }
}

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  readonly context: BrowserContext;
  /** Every console message Chromium printed that reports a Content-Security-Policy violation. */
  readonly cspViolations: string[];
  newPage(): Promise<Page>;
}

/** A headless Chromium with a fresh profile directory, closed and removed after the test. */
export async function launchBrowser(
  t: TestContext,
  executablePath: string,
  viewport = { width: 1280, height: 800 },
): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-chromium-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport,
    timeout: 60_000,
  });
  t.after(async () => {
    await context.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });
  const cspViolations: string[] = [];
  const watch = (p: Page) =>
    p.on('console', (m) => {
      if (/Content[- ]Security[- ]Policy|Refused to (execute|load|apply)/i.test(m.text()))
        cspViolations.push(m.text());
    });
  context.pages().forEach(watch);
  context.on('page', watch);
  return { context, cspViolations, newPage: () => context.newPage() };
}

/** Why the console's browser tests skip here, or false where a Chromium is found. */
export const CHROMIUM_SKIP: string | false = findChromium()
  ? false
  : "no Chromium found (install Debian's chromium package or set AGENTTEAM_CHROMIUM)";

/** Where the console tests save screenshots (docs/console), when set. */
const SHOTS = process.env.AGENTTEAM_SCREENSHOTS;

/** `agentteam console`: the one-time sign-in link it prints, under the console's own `*.localhost` name. */
export async function signInUrl(d: {
  cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }>;
}): Promise<string> {
  const r = await d.cli(['console']);
  assert.equal(r.code, 0, r.stderr);
  const url = r.stdout.trim();
  assert.match(
    url,
    /^http:\/\/agentteam-[0-9a-f]{32}\.localhost:\d+\/console\/login\?code=[A-Za-z0-9_-]{43}$/,
  );
  return url;
}

export async function shot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

/**
 * A headless Chromium signed in to `d`'s console with a fresh one-time code,
 * on the Overview: the browser (for more pages), the page, and the console's
 * origin.
 */
export async function signedInConsole(
  t: TestContext,
  executablePath: string,
  d: Parameters<typeof signInUrl>[0],
): Promise<{ b: Browser; page: Page; co: string }> {
  const b = await launchBrowser(t, executablePath);
  const page = await b.newPage();
  const link = await signInUrl(d);
  const co = new URL(link).origin;
  await page.goto(link);
  await page.waitForURL(`${co}/console/`);
  return { b, page, co };
}
