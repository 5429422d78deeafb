package io.shardwise.testkit.internal;

import io.shardwise.testkit.PostgresStartException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The operating-system account that runs PostgreSQL. PostgreSQL refuses to run as root, so when the
 * JVM is root every server command is run through {@code setpriv} as an unprivileged account that
 * owns the data directories: the configured one, else {@code postgres} where it exists, else
 * {@code nobody}, which every Linux system has. Otherwise commands run as the JVM's user.
 */
public final class ServerUser {
  private final String name;
  private final String group;
  private final boolean switchUser;

  private ServerUser(String name, String group, boolean switchUser) {
    this.name = name;
    this.group = group;
    this.switchUser = switchUser;
  }

  /** The account a fresh machine has without any set-up; it runs PostgreSQL when there is no {@code postgres}. */
  static final String FALLBACK_ACCOUNT = "nobody";
  static final String CONVENTIONAL_ACCOUNT = "postgres";

  public static ServerUser detect(String configuredAccount) {
    if (!isRoot()) {
      return new ServerUser(System.getProperty("user.name"), null, false);
    }
    String account = chooseAccount(configuredAccount, name -> primaryGroup(name) != null);
    String group = primaryGroup(account);
    if (group == null) {
      throw new PostgresStartException("The account '" + account + "' chosen to run PostgreSQL has disappeared"
          + " while the testkit started (id -gn " + account + " fails).");
    }
    if (run(List.of("setpriv", "--version")) == null) {
      throw new PostgresStartException("The JVM runs as root; the testkit needs util-linux's setpriv to run"
          + " PostgreSQL as '" + account + "'. Install util-linux, or run the tests as an ordinary user.");
    }
    return new ServerUser(account, group, true);
  }

  /**
   * Which account runs PostgreSQL for a root JVM: the configured one (which must exist), else
   * {@code postgres} if it exists, else {@code nobody}.
   *
   * @param accountExists whether the system knows an account of that name
   */
  static String chooseAccount(String configuredAccount, Predicate<String> accountExists) {
    if (configuredAccount != null && !configuredAccount.isBlank()) {
      String account = configuredAccount.trim();
      if (!accountExists.test(account)) {
        throw new PostgresStartException("The JVM runs as root and PostgreSQL refuses to run as root, so the"
            + " testkit runs it as the account named by shardwise.testkit.osUser, '" + account + "', which does"
            + " not exist here. Create it (useradd --system --user-group " + account + "), or leave the"
            + " property unset to use '" + CONVENTIONAL_ACCOUNT + "' or, failing that, '" + FALLBACK_ACCOUNT + "'.");
      }
      return account;
    }
    if (accountExists.test(CONVENTIONAL_ACCOUNT)) {
      return CONVENTIONAL_ACCOUNT;
    }
    if (accountExists.test(FALLBACK_ACCOUNT)) {
      return FALLBACK_ACCOUNT;
    }
    throw new PostgresStartException("The JVM runs as root and PostgreSQL refuses to run as root, but this system"
        + " has neither the account '" + CONVENTIONAL_ACCOUNT + "' nor '" + FALLBACK_ACCOUNT + "' to run it as."
        + " Create one (useradd --system --user-group " + CONVENTIONAL_ACCOUNT + ") or name an existing"
        + " unprivileged account with -Dshardwise.testkit.osUser=<account>.");
  }

  /** The account's primary group as {@code id -gn} reports it, or null when there is no such account. */
  private static String primaryGroup(String account) {
    List<String> command = List.of("id", "-gn", "--", account);
    try {
      Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
      p.getOutputStream().close();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      return p.waitFor() == 0 && !out.isEmpty() ? out : null;
    } catch (IOException e) {
      throw new PostgresStartException("Could not run '" + String.join(" ", command) + "' to look up the account"
          + " that runs PostgreSQL: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PostgresStartException("Interrupted while looking up the account '" + account + "'", e);
    }
  }

  private static boolean isRoot() {
    try {
      Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
      return uid instanceof Integer i && i == 0;
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return "root".equals(System.getProperty("user.name"));
    }
  }

  public String name() {
    return name;
  }

  public boolean switchesUser() {
    return switchUser;
  }

  /** The command line that runs {@code command} as this account (exec, no intermediate process). */
  public List<String> command(List<String> command) {
    if (!switchUser) {
      return command;
    }
    List<String> wrapped = new ArrayList<>(command.size() + 5);
    wrapped.add("setpriv");
    wrapped.add("--reuid=" + name);
    wrapped.add("--regid=" + group);
    wrapped.add("--init-groups");
    wrapped.add("--");
    wrapped.addAll(command);
    return wrapped;
  }

  /** Hands a file or directory that the JVM created to this account. */
  public void own(Path path) throws IOException {
    if (!switchUser) {
      return;
    }
    UserPrincipalLookupService lookup = path.getFileSystem().getUserPrincipalLookupService();
    PosixFileAttributeView view = Files.getFileAttributeView(path, PosixFileAttributeView.class,
        java.nio.file.LinkOption.NOFOLLOW_LINKS);
    view.setOwner(lookup.lookupPrincipalByName(name));
    view.setGroup(lookup.lookupPrincipalByGroupName(group));
  }

  /** Lets this account pass through a directory the JVM created (it needs search permission on every parent). */
  public void letTraverse(Path dir) throws IOException {
    if (!switchUser) {
      return;
    }
    var perms = java.util.EnumSet.copyOf(Files.getPosixFilePermissions(dir));
    perms.add(java.nio.file.attribute.PosixFilePermission.GROUP_EXECUTE);
    perms.add(java.nio.file.attribute.PosixFilePermission.OTHERS_EXECUTE);
    Files.setPosixFilePermissions(dir, perms);
  }

  /** Fails early, and says why, when this account cannot write into {@code dir}. */
  public void requireAccess(Path dir) {
    if (!switchUser) {
      return;
    }
    try {
      runChecked(List.of("test", "-w", dir.toString(), "-a", "-x", dir.toString()), null, 30);
    } catch (PostgresStartException e) {
      throw new PostgresStartException("PostgreSQL runs as '" + name + "', which cannot reach " + dir
          + ". Every parent directory must be searchable by it (chmod o+x), so a work directory under a"
          + " private home such as /root does not work: set -Dshardwise.testkit.workDir to a directory"
          + " under /tmp or /var/tmp.", e);
    }
  }

  /** Runs a short command as this account; returns its output, or throws with the output on failure. */
  public String runChecked(List<String> command, Path workDir, long timeoutSeconds) {
    ProcessBuilder pb = new ProcessBuilder(command(command)).redirectErrorStream(true);
    if (workDir != null) {
      pb.directory(workDir.toFile());
    }
    pb.environment().put("LC_ALL", "C");
    pb.environment().put("LANG", "C");
    try {
      Process p = pb.start();
      p.getOutputStream().close();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new PostgresStartException("'" + String.join(" ", command) + "' did not finish within "
            + timeoutSeconds + " s");
      }
      String text = new String(out, StandardCharsets.UTF_8);
      if (p.exitValue() != 0) {
        throw new PostgresStartException("'" + String.join(" ", command) + "' as " + name + " failed with exit code "
            + p.exitValue() + ":\n" + text);
      }
      return text;
    } catch (IOException e) {
      throw new PostgresStartException("Could not run '" + String.join(" ", command) + "': " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PostgresStartException("Interrupted while running '" + String.join(" ", command) + "'", e);
    }
  }

  private static String run(List<String> command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      p.getOutputStream().close();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      return p.waitFor() == 0 ? out : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }
}
