// Node's pg against hop serve --pg-port: a plain query and a parameterised one
// (test/pgwire_clients_test.cc). NODE_PATH points at the pg that scripts/setup installs.
const { Client } = require('pg');

(async () => {
  const client = new Client({ connectionString: process.argv[2] });
  await client.connect();
  const all = await client.query('SELECT id, name FROM c.people ORDER BY id');
  console.log(JSON.stringify(all.rows));
  const one = await client.query('SELECT name FROM c.people WHERE id = $1', [2]);
  console.log(one.rows[0].name);
  try {
    await client.query('SELECT nope');
  } catch (e) {
    console.log('error ' + e.code);
  }
  await client.end();
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
