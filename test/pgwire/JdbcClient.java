// The PostgreSQL JDBC driver against hop serve --pg-port: Statement and PreparedStatement, with
// enough executions to switch the driver to named server-side statements and binary transfer
// (test/pgwire_clients_test.cc). Run as java -cp /usr/share/java/postgresql.jar JdbcClient.java URL.
import java.sql.*;

public class JdbcClient {
  public static void main(String[] args) throws Exception {
    try (Connection c = DriverManager.getConnection(args[0], "jdbc", "")) {
      try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT id, name FROM c.people ORDER BY id")) {
        while (r.next()) System.out.println(r.getInt(1) + " " + r.getString(2));
      }
      try (PreparedStatement p = c.prepareStatement("SELECT name, score, born FROM c.people WHERE id = ?")) {
        for (int i = 0; i < 7; i++) {
          p.setInt(1, 1 + i % 2);
          try (ResultSet r = p.executeQuery()) {
            r.next();
            if (i >= 5) System.out.println(r.getString(1) + " " + r.getDouble(2) + " " + r.getDate(3));
          }
        }
      }
      try (Statement s = c.createStatement()) {
        System.out.println(s.executeUpdate("INSERT INTO c.people VALUES (3, 'Grace', 7.0, DATE '1906-12-09')"));
      }
      try (Statement s = c.createStatement()) {
        s.executeQuery("SELECT nope");
      } catch (SQLException e) {
        System.out.println("error " + e.getSQLState());
      }
      // The catalog as DatabaseMetaData reads it (docs/pg_catalog.md).
      DatabaseMetaData md = c.getMetaData();
      try (ResultSet r = md.getTables(null, null, "people", new String[] {"TABLE"})) {
        while (r.next()) System.out.println("table " + r.getString("TABLE_SCHEM") + "." + r.getString("TABLE_NAME"));
      }
      try (ResultSet r = md.getColumns(null, "c", "people", null)) {
        while (r.next()) System.out.println("column " + r.getString("COLUMN_NAME") + " " + r.getString("TYPE_NAME"));
      }
      // A local table keeps no primary key: the driver's query runs and finds none.
      try (ResultSet r = md.getPrimaryKeys(null, "c", "people")) {
        int keys = 0;
        while (r.next()) {
          keys++;
          System.out.println("key " + r.getString("COLUMN_NAME") + " " + r.getInt("KEY_SEQ"));
        }
        System.out.println("primary keys " + keys);
      }
      // Column types by OID (int4[], json, interval[]); for interval[] the driver asks pg_type for
      // the type, its element type and whether it is an array.
      try (Statement s = c.createStatement();
           ResultSet r = s.executeQuery("SELECT ARRAY[1, 2] AS a, MAP['k', 1] AS m, ARRAY[INTERVAL '1' DAY] AS i")) {
        ResultSetMetaData m = r.getMetaData();
        r.next();
        System.out.println("types " + m.getColumnTypeName(1) + " " + m.getColumnTypeName(2) + " " + m.getColumnTypeName(3)
            + " " + r.getString(1) + " " + r.getString(2) + " " + r.getArray(3).getBaseTypeName());
      }
    }
  }
}
