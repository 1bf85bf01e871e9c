// `npm run bench` options: every part and option is listed in the French help, the engines and the national scale are chosen as asked, and a wrong option is refused with a French message naming it.
import { expect } from 'chai';
import { HELP, PARTS, parseBenchOptions } from '../../../scripts/bench/bench-options.js';

describe('npm run bench options', () => {
  it('lists every part and option in the help', () => {
    for (const part of PARTS) expect(HELP).to.match(new RegExp(`^  ${part} `, 'm'));
    for (const option of ['--help', '--engine', '--only', '--no-large', '--large', '--scale national', '--scale-factor']) expect(HELP).to.include(option);
    expect(parseBenchOptions(['--', '--help'], {})).to.deep.equal({ help: true });
  });

  it('runs every part but the national one by default, on both engines', () => {
    const options = parseBenchOptions([], {});
    if (!('parts' in options)) throw new Error('options attendues');
    expect([...options.parts]).to.deep.equal(PARTS.filter((p) => p !== 'national'));
    expect(options.engines).to.deep.equal(['sqlite', 'postgres']);
    const noLarge = parseBenchOptions([], { BENCH_LARGE: '0' });
    expect('parts' in noLarge && noLarge.parts.has('large')).to.equal(false);
  });

  it('chooses the engines and the parts', () => {
    expect(parseBenchOptions(['--engine', 'postgres', '--only=moteurs'], {})).to.deep.include({ engines: ['postgres'] });
    const only = parseBenchOptions(['--only=moteurs,appel', '--engine=sqlite'], {});
    if (!('parts' in only)) throw new Error('options attendues');
    expect([...only.parts]).to.deep.equal(['moteurs', 'appel']);
    expect(only.engines).to.deep.equal(['sqlite']);
  });

  it('runs the national part alone with --scale national, at the factor given', () => {
    const options = parseBenchOptions(['--scale', 'national', '--scale-factor', '0.05'], {});
    if (!('parts' in options)) throw new Error('options attendues');
    expect([...options.parts]).to.deep.equal(['national']);
    expect(options.scaleFactor).to.equal(0.05);
    const full = parseBenchOptions(['--scale=national'], {});
    expect('parts' in full && full.scaleFactor).to.equal(1);
  });

  it('refuses a wrong option with a French message naming it', () => {
    expect(parseBenchOptions(['--engine', 'mysql'], {})).to.deep.equal({ error: '--engine attend sqlite, postgres ou both (reçu « mysql »).' });
    expect(parseBenchOptions(['--vite'], {})).to.deep.equal({ error: 'option inconnue : --vite' });
    expect(parseBenchOptions(['--only=tout'], {})).to.have.property('error').that.includes('partie inconnue : tout');
    expect(parseBenchOptions(['--scale', 'national', '--scale-factor', '2'], {})).to.have.property('error').that.includes('--scale-factor');
    expect(parseBenchOptions(['--scale-factor', '0.1'], {})).to.have.property('error').that.includes('--scale national');
    expect(parseBenchOptions(['--only=large', '--no-large'], {})).to.have.property('error');
  });
});
