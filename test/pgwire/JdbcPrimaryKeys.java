// DatabaseMetaData.getPrimaryKeys over the wire (test/pgwire_clients_test.cc): one line per key
// column. Run as java -cp /usr/share/java/postgresql.jar JdbcPrimaryKeys.java URL SCHEMA TABLE.
import java.sql.*;

public class JdbcPrimaryKeys {
  public static void main(String[] args) throws Exception {
    try (Connection c = DriverManager.getConnection(args[0], "jdbc", "");
         ResultSet r = c.getMetaData().getPrimaryKeys(null, args[1], args[2])) {
      while (r.next()) {
        System.out.println(r.getString("TABLE_SCHEM") + "." + r.getString("TABLE_NAME") + " "
            + r.getString("COLUMN_NAME") + " " + r.getInt("KEY_SEQ") + " " + r.getString("PK_NAME"));
      }
    }
  }
}
