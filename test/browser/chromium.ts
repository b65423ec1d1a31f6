/**
 * Debian's chromium driven by playwright-core, for the browser tests. A machine without it fails the tests
 * with the command that installs it: the browser tests are never skipped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Throws, saying how to install it, when there is no chromium at CHROMIUM. */
export function requireChromium(): void {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(
      `The browser tests need Debian's chromium at ${CHROMIUM}, which is missing: install it with \`sudo apt-get ` +
        'update && sudo apt-get install -y chromium` (.ci/run does this by itself), or set CHROMIUM_PATH to a ' +
        'Chromium binary',
    );
  }
}

/** A headless chromium with its own profile directory, and its first page. */
export async function launchChromium(profileDir: string): Promise<{ context: BrowserContext; page: Page }> {
  requireChromium();
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1600, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return { context, page };
}

/**
 * Where the browser tests save their screenshots: $TB_SCREENSHOTS_DIR, relative to the repository, or
 * .screenshots/ (git-ignored). The README's pictures are taken with TB_SCREENSHOTS_DIR=docs/images.
 */
export function screenshotDir(): string {
  const dir = path.resolve(__dirname, '..', '..', process.env.TB_SCREENSHOTS_DIR || '.screenshots');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}
