#!/usr/bin/env node
// `node bin/jsonapi-gen.js` in a clone: the command of the CLI package (generator/), from its sources.
import '../generator/bin/jsonapi-gen.js';
