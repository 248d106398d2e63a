import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
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
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];

export interface Browser {
  readonly context: BrowserContext;
  /** Every console message Chromium printed that reports a Content-Security-Policy violation. */
  readonly cspViolations: string[];
  newPage(): Promise<Page>;
}

/** A headless Chromium with a fresh profile directory, closed and removed after the test. */
export async function launchBrowser(t: TestContext, executablePath: string, viewport = { width: 1280, height: 800 }): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-chromium-'));
  const context = await chromium.launchPersistentContext(dir, { executablePath, headless: true, args: CHROMIUM_FLAGS, viewport, timeout: 60_000 });
  t.after(async () => {
    await context.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });
  const cspViolations: string[] = [];
  const watch = (p: Page) => p.on('console', (m) => {
    if (/Content[- ]Security[- ]Policy|Refused to (execute|load|apply)/i.test(m.text())) cspViolations.push(m.text());
  });
  context.pages().forEach(watch);
  context.on('page', watch);
  return { context, cspViolations, newPage: () => context.newPage() };
}
