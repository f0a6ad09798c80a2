#!/usr/bin/env node
// `postpack` of every package: puts back the workspace manifest that prepack.mjs replaced.
import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';

const backup = join(process.cwd(), 'package.json.workspace');
if (existsSync(backup)) renameSync(backup, join(process.cwd(), 'package.json'));
