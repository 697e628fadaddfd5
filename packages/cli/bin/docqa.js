#!/usr/bin/env node
// Launcher of the `docqa` executable; the program is built into dist/ by `npm run build`.
import "../dist/bin.js";
