/**
 * Test helper: Debian's nginx (installed by `.ci/install-oracles`) serving directories on loopback ports,
 * started as a child process with its own configuration and scratch directory.
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createConnection, type AddressInfo } from 'node:net';
import { join } from 'node:path';

/** A free TCP port on the loopback interface. */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** Resolves once something accepts connections on the port (5 s at most). */
export async function waitForPort(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((r) => {
      const c = createConnection(port, '127.0.0.1', () => (c.end(), r(true)));
      c.on('error', () => r(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listens on port ${port}`);
}

/** One nginx `server` block: a document root and extra directives (e.g. `max_ranges 0;`). */
export interface NginxSite {
  root: string;
  directives?: string;
}

/** A running nginx and the base URL of each site, in the order given. */
export interface Nginx {
  process: ChildProcess;
  urls: string[];
  stop(): void;
}

/** Starts nginx (foreground, one worker) with its configuration, logs and temp files under `dir`. */
export async function startNginx(dir: string, sites: NginxSite[]): Promise<Nginx> {
  const ports: number[] = [];
  for (let i = 0; i < sites.length; i++) ports.push(await freePort());
  const servers = sites
    .map((s, i) => `  server { listen 127.0.0.1:${ports[i]}; root ${s.root}; ${s.directives ?? ''} }`)
    .join('\n');
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `daemon off;
master_process off;
worker_processes 1;
error_log ${dir}/error.log;
pid ${dir}/nginx.pid;
events { worker_connections 1024; }
http {
  include /etc/nginx/mime.types;
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${servers}
}
`,
  );
  const proc = spawn('/usr/sbin/nginx', ['-c', conf, '-p', dir], { stdio: 'ignore' });
  for (const p of ports) await waitForPort(p);
  return { process: proc, urls: ports.map((p) => `http://127.0.0.1:${p}`), stop: () => proc.kill() };
}
