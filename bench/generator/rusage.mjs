// Preloaded into a measured child (`node --import ./rusage.mjs ...`): at exit, writes the
// process's own resource usage (CPU µs, peak RSS KB) as JSON to the file $RUSAGE_FILE.
import { writeFileSync } from 'node:fs';

const file = process.env.RUSAGE_FILE;
if (file) {
  process.on('exit', () => {
    const { userCPUTime, systemCPUTime, maxRSS } = process.resourceUsage();
    writeFileSync(file, JSON.stringify({ cpuUs: userCPUTime + systemCPUTime, maxRssKb: maxRSS }));
  });
}
