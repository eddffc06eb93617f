// Numbers as the page shows them (display only: no decision reads these).

export const fmtBytes = (n) => (n < 1024 ? `${n} bytes` : n < 1048576 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1048576).toFixed(1)} MB`);
export const fmtInt = (n) => n.toLocaleString('en-US');
export const pct = (x) => `${(100 * x).toFixed(1)}%`;
