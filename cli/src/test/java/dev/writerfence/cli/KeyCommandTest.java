package dev.writerfence.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.store.advisory.AdvisoryKeys;
import dev.writerfence.testing.EmbeddedDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** {@code key NAME}: the advisory-lock key, as core computes it and as SQL computes it. */
class KeyCommandTest {

  @Test
  void keyOfCorpusIsTheFixedTestVectorInDecimalAndHex() {
    Cli.Run decimal = Cli.run("key", "corpus");
    assertThat(decimal.exitCode()).as(decimal.err()).isZero();
    assertThat(decimal.out().strip()).isEqualTo(Long.toString(AdvisoryKeys.CORPUS_KEY));

    Cli.Run hex = Cli.run("key", "--hex", "corpus");
    assertThat(hex.exitCode()).as(hex.err()).isZero();
    assertThat(hex.out().strip()).isEqualTo("0x2ffaad2591b40710");
    assertThat(Long.parseUnsignedLong(hex.out().strip().substring(2), 16))
        .isEqualTo(AdvisoryKeys.CORPUS_KEY);
  }

  @Test
  void aNegativeKeyIsPrintedSignedAndItsHexHasSixteenDigits() {
    // a name whose key is negative, and the same key computed by PostgreSQL from the documented
    // formula
    String name = "bucket-a";
    long key = AdvisoryKeys.keyOf(name);
    assertThat(key).isEqualTo(-521600595747767039L);
    Cli.Run run = Cli.run("key", name);
    assertThat(run.out().strip()).isEqualTo("-521600595747767039");
    assertThat(Cli.run("key", "--hex", name).out().strip()).isEqualTo("0xf8c2e7058fd27d01");
    Long sql =
        EmbeddedDatabase.get()
            .queryValue(
                Long.class,
                "SELECT ('x' || left(encode(sha256(convert_to('writer-fence:' || ?, 'UTF8')),"
                    + " 'hex'), 16))::bit(64)::bigint",
                name);
    assertThat(sql).isEqualTo(key);
    assertThat(KeyCommand.format(-1L, true)).isEqualTo("0xffffffffffffffff");
    assertThat(KeyCommand.format(1L, true)).isEqualTo("0x0000000000000001");
  }

  @Test
  void theRunbooksPgLocksQueryFindsTheSessionHoldingTheKey() throws Exception {
    String name = "bucket-a"; // a negative key: the sign bit is in classid
    long key = Long.parseLong(Cli.run("key", name).out().strip());
    EmbeddedDatabase db = EmbeddedDatabase.get();
    try (Connection holder = db.dataSource().getConnection();
        Statement st = holder.createStatement()) {
      ResultSet locked = st.executeQuery("SELECT pg_try_advisory_lock(" + key + ")");
      locked.next();
      assertThat(locked.getBoolean(1)).isTrue();
      ResultSet pid = st.executeQuery("SELECT pg_backend_pid()");
      pid.next();
      int holderPid = pid.getInt(1);

      Integer found =
          db.queryValue(
              Integer.class,
              "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 AND granted"
                  + " AND ((classid::bigint << 32) | objid::bigint) = ?",
              key);
      assertThat(found).isEqualTo(holderPid);
      st.execute("SELECT pg_advisory_unlock(" + key + ")");
    }
  }

  @Test
  void aBadFenceNameIsBadInputNamingIt() {
    Cli.Run run = Cli.run("key", " corpus");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err().lines())
        .containsExactly(
            "writer-fence: fence name ' corpus' is not allowed: 1 to 200 characters, no control or"
                + " format characters, no leading or trailing white space",
            "Try './writer-fence key --help'");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void aKeyTemplateFedByArgumentsGivesTheKeyOtherWritersHashWithoutThePrefix() {
    Cli.Run run = Cli.run("key", "--scheme", "vibey.integrate:{0}:{1}", "proj", "42");

    assertThat(run.exitCode()).as(run.err()).isZero();
    // Python: int.from_bytes(hashlib.sha256(b"vibey.integrate:proj:42").digest()[:8], "big",
    // signed=True)
    assertThat(run.out().strip()).isEqualTo("-5474636962828788384");
    Long sql =
        EmbeddedDatabase.get()
            .queryValue(
                Long.class,
                "SELECT ('x' || left(encode(sha256(convert_to(?, 'UTF8')), 'hex'), 16))"
                    + "::bit(64)::bigint",
                "vibey.integrate:proj:42");
    assertThat(sql).isEqualTo(-5474636962828788384L);
    assertThat(
            Cli.run("key", "--hex", "--scheme", "vibey.integrate:{0}:{1}", "proj", "42")
                .out()
                .strip())
        .isEqualTo(KeyCommand.format(-5474636962828788384L, true));
  }

  @Test
  void aKeySchemeWithNameTakesTheFenceNameAndTheDefaultSchemeIsThePlainForm() {
    Cli.Run scheme = Cli.run("key", "--scheme", "vibey.fence:{name}", "corpus");
    assertThat(scheme.exitCode()).as(scheme.err()).isZero();
    assertThat(scheme.out().strip()).isEqualTo("-432546600334352835");

    Cli.Run plain = Cli.run("key", "--scheme", AdvisoryKeys.DEFAULT_KEY_SCHEME, "corpus");
    assertThat(plain.out().strip()).isEqualTo(Long.toString(AdvisoryKeys.CORPUS_KEY));
  }

  @Test
  void aBadTemplateOrTheWrongNumberOfArgumentsIsBadInputNamingIt() {
    Cli.Run badPlaceholder = Cli.run("key", "--scheme", "vibey:{project}", "proj");
    assertThat(badPlaceholder.exitCode()).isEqualTo(2);
    assertThat(badPlaceholder.err())
        .contains(
            "advisory key template 'vibey:{project}' is not allowed: a placeholder is {N} with N"
                + " an argument index from 0");
    assertThat(badPlaceholder.out()).isEmpty();

    Cli.Run tooFew = Cli.run("key", "--scheme", "vibey.integrate:{0}:{1}", "proj");
    assertThat(tooFew.exitCode()).isEqualTo(2);
    assertThat(tooFew.err())
        .contains("advisory key template 'vibey.integrate:{0}:{1}' takes 2 ARG(s)")
        .contains("but 1 were given");

    Cli.Run twoNames = Cli.run("key", "corpus", "extra");
    assertThat(twoNames.exitCode()).isEqualTo(2);
    assertThat(twoNames.err()).contains("key takes one NAME here, not 2 values [corpus, extra]");

    Cli.Run mixed = Cli.run("key", "--scheme", "x:{name}:{0}", "corpus");
    assertThat(mixed.exitCode()).isEqualTo(2);
    assertThat(mixed.err())
        .contains("advisory.key-scheme 'x:{name}:{0}' is not allowed: text with {name}");
  }
}
