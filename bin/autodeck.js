#!/usr/bin/env node
import { runCli } from '../dist/src/cli.js';

runCli({ loadDashboard: async () => (await import('../dist/components/dashboard.js')).runDashboard });
