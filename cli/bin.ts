#!/usr/bin/env node
/*
 * Kept for callers that start dist/cli/bin.js. The package's binary is the
 * build's CommonJS bundle dist/cli/agentteam.cjs (see cli/agentteam.ts); this
 * ESM file only loads it, so both run the same code, this one a few ms slower.
 */
import { createRequire } from 'node:module';

createRequire(import.meta.url)('./agentteam.cjs');
