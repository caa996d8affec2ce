'use strict';
// A grouped bar chart as a standalone SVG: per Node version, stock vs patched
// requests/s of one benchmark.

function barChart({ title, groups, series, colors = ['#9aa5b1', '#2f7ed8'] }) {
  // groups: [{ label, values: [stock, patched] }]
  const width = 120 + groups.length * 150;
  const height = 320;
  const top = 50;
  const bottom = 260;
  const max = Math.max(...groups.flatMap((g) => g.values)) * 1.15 || 1;
  const y = (v) => bottom - (v / max) * (bottom - top);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    '<rect width="100%" height="100%" fill="white"/>',
    `<text x="${width / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">${title}</text>`,
    `<line x1="60" y1="${bottom}" x2="${width - 20}" y2="${bottom}" stroke="#333"/>`,
  ];
  for (let t = 0; t <= 4; t++) {
    const v = (max / 4) * t;
    parts.push(`<text x="55" y="${y(v) + 4}" text-anchor="end" fill="#555">${Math.round(v)}</text>`,
      `<line x1="60" y1="${y(v)}" x2="${width - 20}" y2="${y(v)}" stroke="#eee"/>`);
  }
  groups.forEach((g, i) => {
    const x0 = 90 + i * 150;
    g.values.forEach((v, j) => {
      const x = x0 + j * 50;
      parts.push(`<rect x="${x}" y="${y(v)}" width="44" height="${bottom - y(v)}" fill="${colors[j]}"/>`,
        `<text x="${x + 22}" y="${y(v) - 5}" text-anchor="middle">${Math.round(v)}</text>`);
    });
    const gain = g.values[0] ? ((g.values[1] / g.values[0] - 1) * 100).toFixed(0) : '?';
    parts.push(`<text x="${x0 + 47}" y="${bottom + 18}" text-anchor="middle">${g.label}</text>`,
      `<text x="${x0 + 47}" y="${bottom + 34}" text-anchor="middle" fill="#2f7ed8">${gain >= 0 ? '+' : ''}${gain}%</text>`);
  });
  series.forEach((s, j) => {
    parts.push(`<rect x="${70 + j * 110}" y="${height - 20}" width="12" height="12" fill="${colors[j]}"/>`,
      `<text x="${86 + j * 110}" y="${height - 10}">${s}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}

module.exports = { barChart };
