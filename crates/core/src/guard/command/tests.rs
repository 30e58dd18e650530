use super::shell::{self, RedirOp};
use super::*;
use proptest::prelude::*;

const I: Mode = Mode::Interactive;
const U: Mode = Mode::Unattended;

/// An intent that asks for every kind of destruction there is.
const EVERYTHING: &str = "delete everything, wipe and format the disk, discard my changes, force push, drop the \
                          tables, remove the containers, fix the permissions, restart the computer, empty the file";

fn words(line: &str) -> Vec<Vec<String>> {
    shell::parse(line, 0).commands.into_iter().map(|c| c.words).collect()
}

fn first(line: &str) -> CommandFinding {
    match destructive_commands(line).into_iter().next() {
        Some(f) => f,
        None => panic!("no finding for {line:?}"),
    }
}

fn refused_with(v: &CommandVerdict) -> Option<(&'static str, bool)> {
    match v {
        CommandVerdict::Refused { rule, can_ask, .. } => Some((rule, *can_ask)),
        _ => None,
    }
}

#[test]
fn splits_like_a_shell() {
    let cases: &[(&str, &[&[&str]])] = &[
        ("rm -rf build", &[&["rm", "-rf", "build"]]),
        ("  rm\t-rf   build  ", &[&["rm", "-rf", "build"]]),
        ("'r'\"m\" -rf a\\ b", &[&["rm", "-rf", "a b"]]),
        ("\\rm x", &[&["rm", "x"]]),
        ("echo 'a b' \"c $HOME\" d\\\"e", &[&["echo", "a b", "c $HOME", "d\"e"]]),
        ("echo \"a \\$b \\\\ \\x\"", &[&["echo", "a $b \\ \\x"]]),
        ("echo 'it'\\''s'", &[&["echo", "it's"]]),
        ("$'\\x72m' -rf $'a\\tb' $'\\101\\u00e9\\''", &[&["rm", "-rf", "a\tb", "Aé'"]]),
        ("$\"rm\" x", &[&["rm", "x"]]),
        ("a; b && c || d | e |& f & g\nh", &[&["a"], &["b"], &["c"], &["d"], &["e"], &["f"], &["g"], &["h"]]),
        ("a;b&&c||d|e", &[&["a"], &["b"], &["c"], &["d"], &["e"]]),
        ("(cd x && rm y)", &[&["cd", "x"], &["rm", "y"]]),
        ("{ rm a; rm b; }", &[&["rm", "a"], &["rm", "b"]]),
        ("if true; then rm a; else rm b; fi", &[&["true"], &["rm", "a"], &["rm", "b"]]),
        ("while read f; do rm \"$f\"; done", &[&["read", "f"], &["rm", "$f"]]),
        ("! rm a", &[&["rm", "a"]]),
        ("echo $(rm -rf x)", &[&["rm", "-rf", "x"], &["echo", "$(rm -rf x)"]]),
        ("echo `rm x`", &[&["rm", "x"], &["echo", "`rm x`"]]),
        ("echo \"$(rm x) y\"", &[&["rm", "x"], &["echo", "$(rm x) y"]]),
        ("echo $(echo $(rm z))", &[&["rm", "z"], &["echo", "$(rm z)"], &["echo", "$(echo $(rm z))"]]),
        ("echo $( (rm a) )", &[&["rm", "a"], &["echo", "$( (rm a) )"]]),
        ("echo $(echo ')'; rm b)", &[&["echo", ")"], &["rm", "b"], &["echo", "$(echo ')'; rm b)"]]),
        ("echo ${X:-$(rm c)}", &[&["rm", "c"], &["X:-$(rm c)"], &["echo", "${X:-$(rm c)}"]]),
        ("cat <(rm a) >(rm b)", &[&["rm", "a"], &["rm", "b"], &["cat", "<(rm a)", ">(rm b)"]]),
        ("X=1 Y='a b' rm a", &[&["X=1", "Y=a b", "rm", "a"]]),
        ("echo a # rm b", &[&["echo", "a"]]),
        ("echo a#b", &[&["echo", "a#b"]]),
        ("rm \\\n -rf x", &[&["rm", "-rf", "x"]]),
        // Unterminated input is split as far as it goes.
        ("echo 'unterminated rm -rf", &[&["echo", "unterminated rm -rf"]]),
        ("echo \"open", &[&["echo", "open"]]),
        ("echo $(rm a", &[&["rm", "a"], &["echo", "$(rm a)"]]),
        ("(rm a", &[&["rm", "a"]]),
        ("rm a\\", &[&["rm", "a"]]),
        ("", &[]),
        ("   ", &[]),
        // Quoted reserved words and braces are ordinary words.
        ("'if' x", &[&["if", "x"]]),
        ("echo '{' \"}\"", &[&["echo", "{", "}"]]),
        ("find . -exec rm {} \\;", &[&["find", ".", "-exec", "rm", "{}", ";"]]),
    ];
    for (line, want) in cases {
        let want: Vec<Vec<String>> = want.iter().map(|c| c.iter().map(|w| w.to_string()).collect()).collect();
        assert_eq!(words(line), want, "line {line:?}");
    }
}

#[test]
fn splits_redirections_and_pipes() {
    let redirects = |line: &str| -> Vec<(Option<String>, RedirOp, String)> {
        shell::parse(line, 0).commands.into_iter().flat_map(|c| c.redirects).map(|r| (r.fd, r.op, r.target)).collect()
    };
    let s = |x: &str| x.to_string();
    assert_eq!(redirects("cmd > f"), [(None, RedirOp::Write, s("f"))]);
    assert_eq!(redirects("cmd >f 2>&1"), [(None, RedirOp::Write, s("f")), (Some(s("2")), RedirOp::DupOut, s("1"))]);
    assert_eq!(redirects("cmd >> 'my log'"), [(None, RedirOp::Append, s("my log"))]);
    assert_eq!(redirects("cmd >| f"), [(None, RedirOp::Write, s("f"))]);
    assert_eq!(redirects("cmd &> f &>> g"), [(None, RedirOp::WriteBoth, s("f")), (None, RedirOp::AppendBoth, s("g"))]);
    assert_eq!(
        redirects("cmd >&f >&2 >&-"),
        [(None, RedirOp::WriteBoth, s("f")), (None, RedirOp::DupOut, s("2")), (None, RedirOp::DupOut, s("-"))]
    );
    assert_eq!(redirects("cmd 2>err <in"), [(Some(s("2")), RedirOp::Write, s("err")), (None, RedirOp::Read, s("in"))]);
    assert_eq!(redirects("bash <<< 'rm -rf /'"), [(None, RedirOp::HereString, s("rm -rf /"))]);
    assert_eq!(redirects("cat <<-'EOF'"), [(None, RedirOp::HereDoc, s("EOF"))]);
    assert_eq!(redirects("> f"), [(None, RedirOp::Write, s("f"))]);
    // A number that is its own word is an argument, not a descriptor.
    assert_eq!(redirects("echo 2 > f"), [(None, RedirOp::Write, s("f"))]);
    assert_eq!(words("echo 2 > f"), [["echo", "2"]]);

    let parsed = shell::parse("echo x | sh; ls | grep a | wc", 0);
    let pipes: Vec<Option<usize>> = parsed.commands.iter().map(|c| c.pipe_from).collect();
    assert_eq!(pipes, [None, Some(0), None, Some(2), Some(3)]);
    // A compound command's output redirection belongs to it.
    let parsed = shell::parse("{ echo a; } > out; > bare", 0);
    let groups: Vec<bool> = parsed.commands.iter().map(|c| c.group_output).collect();
    assert_eq!(groups, [false, true, false]);
}

#[test]
fn displays_commands_as_a_shell_would_run_them() {
    let shown = |line: &str| shell::parse(line, 0).commands.iter().map(|c| c.display()).collect::<Vec<_>>();
    assert_eq!(shown("'r'm  -rf   'my dir'"), ["rm -rf 'my dir'"]);
    assert_eq!(shown("echo \"it's\" > out"), ["echo 'it'\\''s' >out"]);
    assert_eq!(shown("rm ''"), ["rm ''"]);
}

/// (line, rule of the most severe finding, severity, kind)
const CATASTROPHIC: &[(&str, &str, CommandKind)] = &[
    ("rm -rf /", "recursive rm of / or home", CommandKind::Delete),
    ("rm -rf /*", "recursive rm of / or home", CommandKind::Delete),
    ("rm -rf ~", "recursive rm of / or home", CommandKind::Delete),
    ("rm -rf ~/", "recursive rm of / or home", CommandKind::Delete),
    ("rm -rf $HOME", "recursive rm of / or home", CommandKind::Delete),
    ("rm -rf ${HOME}", "recursive rm of / or home", CommandKind::Delete),
    ("rm -rf \"/\"", "recursive rm of / or home", CommandKind::Delete),
    ("rm -fr \"$HOME\"/", "recursive rm of / or home", CommandKind::Delete),
    ("rm -r -f //", "recursive rm of / or home", CommandKind::Delete),
    ("rm -rf /.", "recursive rm of / or home", CommandKind::Delete),
    ("rm --recursive --force /etc/", "recursive rm of / or home", CommandKind::Delete),
    ("rm -Rf /usr", "recursive rm of / or home", CommandKind::Delete),
    ("rm -rf /home/bob", "recursive rm of / or home", CommandKind::Delete),
    ("rm -rf ~/*", "recursive rm of / or home", CommandKind::Delete),
    ("rm -rf /tmp/../", "recursive rm of / or home", CommandKind::Delete),
    ("rm -rf ~/..", "recursive rm of / or home", CommandKind::Delete),
    ("rm -rf ~/./", "recursive rm of / or home", CommandKind::Delete),
    ("rm -rf ~bob", "recursive rm of / or home", CommandKind::Delete),
    ("rm -r --no-preserve-root /tmp/x", "recursive rm of / or home", CommandKind::Delete),
    ("sudo rm -rf --no-preserve-root /", "recursive rm of / or home", CommandKind::Delete),
    ("/bin/rm -rf /", "recursive rm of / or home", CommandKind::Delete),
    ("\\rm -rf ~", "recursive rm of / or home", CommandKind::Delete),
    ("cd /tmp && rm -rf ~", "recursive rm of / or home", CommandKind::Delete),
    ("find / -delete", "find -delete on / or home", CommandKind::Delete),
    ("find ~ -name '*' -delete", "find -delete on / or home", CommandKind::Delete),
    ("dd if=/dev/zero of=/dev/sda", "dd onto a device", CommandKind::DiskWipe),
    ("dd of=/dev/nvme0n1 if=x.img bs=4M", "dd onto a device", CommandKind::DiskWipe),
    ("dd if=x of=/dev/$DISK", "dd onto a device", CommandKind::DiskWipe),
    ("mkfs.ext4 /dev/sdb1", "mkfs", CommandKind::DiskWipe),
    ("mkfs -t ext4 /dev/sdb", "mkfs", CommandKind::DiskWipe),
    ("mke2fs /dev/sdc", "mkfs", CommandKind::DiskWipe),
    ("mkswap /dev/sda2", "mkfs", CommandKind::DiskWipe),
    ("wipefs -a /dev/sda", "wipefs", CommandKind::DiskWipe),
    ("blkdiscard /dev/nvme0n1", "blkdiscard", CommandKind::DiskWipe),
    ("fdisk /dev/sda", "partitioning a disk", CommandKind::DiskWipe),
    ("sfdisk /dev/sda < table", "partitioning a disk", CommandKind::DiskWipe),
    ("sgdisk --zap-all /dev/sda", "partitioning a disk", CommandKind::DiskWipe),
    ("parted -s /dev/sda mklabel gpt", "partitioning a disk", CommandKind::DiskWipe),
    ("gdisk /dev/nvme0n1", "partitioning a disk", CommandKind::DiskWipe),
    ("cat disk.img > /dev/sda", "redirection onto a disk", CommandKind::DiskWipe),
    ("echo x > /dev/nvme0n1", "redirection onto a disk", CommandKind::DiskWipe),
    ("> /dev/vda", "redirection onto a disk", CommandKind::DiskWipe),
    ("head -c 1M /dev/zero >> /dev/mmcblk0", "redirection onto a disk", CommandKind::DiskWipe),
    ("shred /dev/sda", "shred of a device", CommandKind::DiskWipe),
    ("shred -n 3 -z /dev/sdb", "shred of a device", CommandKind::DiskWipe),
    ("cp disk.img /dev/sdb", "write onto a disk", CommandKind::DiskWipe),
    ("tee /dev/sda < disk.img", "write onto a disk", CommandKind::DiskWipe),
    ("diskutil eraseDisk JHFS+ Untitled disk2", "disk erase", CommandKind::DiskWipe),
    ("cryptsetup luksFormat /dev/sdb", "disk erase", CommandKind::DiskWipe),
    ("chmod -R 777 /", "recursive chmod of / or a system directory", CommandKind::Permissions),
    ("chown -R nobody /", "recursive chown of / or a system directory", CommandKind::Permissions),
    ("chgrp -R staff /usr", "recursive chown of / or a system directory", CommandKind::Permissions),
    ("chmod 000 /", "chmod 000 of /", CommandKind::Permissions),
    (":(){ :|:& };:", "fork bomb", CommandKind::Power),
    ("f(){ f|f& };f", "fork bomb", CommandKind::Power),
    ("bomb() { bomb | bomb & }; bomb", "fork bomb", CommandKind::Power),
    ("function b { b | b & }; b", "fork bomb", CommandKind::Power),
    ("sudo :(){ :|:& };:", "fork bomb", CommandKind::Power),
    ("if true; then :(){ :|:& };:; fi", "fork bomb", CommandKind::Power),
    ("bash -c ':() { : | : & }; :'", "fork bomb", CommandKind::Power),
];

const DESTRUCTIVE: &[(&str, &str, CommandKind)] = &[
    ("rm file.txt", "rm", CommandKind::Delete),
    ("rm -f a b", "rm", CommandKind::Delete),
    ("rm -rf /tmp/victim", "recursive rm", CommandKind::Delete),
    ("rm -rf build", "recursive rm", CommandKind::Delete),
    ("rm -r dir", "recursive rm", CommandKind::Delete),
    ("rm -rf $DIR", "recursive rm", CommandKind::Delete),
    ("rm -rf \"$(pwd)\"", "recursive rm", CommandKind::Delete),
    ("rm -rf $(echo /)", "recursive rm", CommandKind::Delete),
    ("rm -rf ./*", "recursive rm", CommandKind::Delete),
    ("rm -rf ~/Documents", "recursive rm", CommandKind::Delete),
    ("rm -rf /usr/local/lib/foo", "recursive rm", CommandKind::Delete),
    ("rm -rf ../..", "recursive rm", CommandKind::Delete),
    ("rm -rf /tmp/*", "recursive rm", CommandKind::Delete),
    ("rm -- -rf", "rm", CommandKind::Delete),
    ("rmdir empty", "rmdir", CommandKind::Delete),
    ("unlink f", "unlink", CommandKind::Delete),
    ("shred -u secret.txt", "shred", CommandKind::Delete),
    ("srm secret.txt", "srm", CommandKind::Delete),
    ("find . -name '*.o' -delete", "find -delete", CommandKind::Delete),
    ("find . -exec rm {} \\;", "rm", CommandKind::Delete),
    ("find . -type d -execdir rm -rf {} +", "recursive rm", CommandKind::Delete),
    ("find . -type f -exec shred -u {} +", "shred", CommandKind::Delete),
    ("find . | xargs rm", "rm", CommandKind::Delete),
    ("mv notes.txt /dev/null", "mv to /dev/null", CommandKind::Delete),
    ("crontab -r", "crontab -r", CommandKind::Delete),
    ("git rm file.txt", "git rm", CommandKind::Delete),
    ("truncate -s 0 app.log", "truncate", CommandKind::Overwrite),
    (": > app.log", "truncating redirection", CommandKind::Overwrite),
    ("> app.log", "truncating redirection", CommandKind::Overwrite),
    ("true > app.log", "truncating redirection", CommandKind::Overwrite),
    ("git reset --hard", "git reset --hard", CommandKind::DiscardChanges),
    ("git reset --hard HEAD~1", "git reset --hard", CommandKind::DiscardChanges),
    ("git -C repo reset --hard", "git reset --hard", CommandKind::DiscardChanges),
    ("git clean -fd", "git clean -f", CommandKind::DiscardChanges),
    ("git clean -xdf", "git clean -f", CommandKind::DiscardChanges),
    ("git clean --force", "git clean -f", CommandKind::DiscardChanges),
    ("git checkout -- .", "git checkout of files", CommandKind::DiscardChanges),
    ("git checkout .", "git checkout of files", CommandKind::DiscardChanges),
    ("git checkout -- src/main.rs", "git checkout of files", CommandKind::DiscardChanges),
    ("git checkout HEAD -- src/", "git checkout of files", CommandKind::DiscardChanges),
    ("git checkout -f main", "git checkout of files", CommandKind::DiscardChanges),
    ("git restore src/main.rs", "git restore", CommandKind::DiscardChanges),
    ("git restore --staged --worktree x", "git restore", CommandKind::DiscardChanges),
    ("git stash drop", "git stash drop", CommandKind::DiscardChanges),
    ("git stash clear", "git stash clear", CommandKind::DiscardChanges),
    ("git branch -D feature", "git branch -D", CommandKind::RewriteHistory),
    ("git branch --delete --force old", "git branch -D", CommandKind::RewriteHistory),
    ("git push --force", "git push --force", CommandKind::RewriteHistory),
    ("git push -f origin main", "git push --force", CommandKind::RewriteHistory),
    ("git push -fu origin main", "git push --force", CommandKind::RewriteHistory),
    ("git push --force-with-lease", "git push --force", CommandKind::RewriteHistory),
    ("git push origin +main", "git push --force", CommandKind::RewriteHistory),
    ("git push origin --delete old", "git push --delete", CommandKind::RewriteHistory),
    ("git push origin :old", "git push --delete", CommandKind::RewriteHistory),
    ("git filter-branch --tree-filter 'rm x' HEAD", "git filter-branch", CommandKind::RewriteHistory),
    ("psql -c \"DROP TABLE users\"", "DROP TABLE", CommandKind::Database),
    ("DROP TABLE users;", "DROP TABLE", CommandKind::Database),
    ("drop database prod;", "DROP DATABASE", CommandKind::Database),
    ("DROP SCHEMA s CASCADE;", "DROP SCHEMA", CommandKind::Database),
    ("DROP INDEX idx;", "DROP INDEX", CommandKind::Database),
    ("DROP VIEW v;", "DROP VIEW", CommandKind::Database),
    ("DROP TEMPORARY TABLE t;", "DROP TABLE", CommandKind::Database),
    ("TRUNCATE TABLE logs;", "TRUNCATE TABLE", CommandKind::Database),
    ("truncate logs;", "TRUNCATE TABLE", CommandKind::Database),
    ("DELETE FROM users;", "DELETE without WHERE", CommandKind::Database),
    ("delete from users where true;", "DELETE without WHERE", CommandKind::Database),
    ("SELECT 1; DELETE FROM users", "DELETE without WHERE", CommandKind::Database),
    ("UPDATE users SET admin = 1;", "UPDATE without WHERE", CommandKind::Database),
    ("mysql -e 'DELETE FROM t'", "DELETE without WHERE", CommandKind::Database),
    ("sqlite3 db.sqlite \"drop table t\"", "DROP TABLE", CommandKind::Database),
    ("echo 'DROP TABLE x' | psql", "DROP TABLE", CommandKind::Database),
    ("echo -- ; echo DELETE FROM t | psql", "DELETE without WHERE", CommandKind::Database),
    ("psql -c \"SELECT 1 /* x */; DROP TABLE t\"", "DROP TABLE", CommandKind::Database),
    ("psql -c $'SELECT 1 -- x\\nDROP TABLE t'", "DROP TABLE", CommandKind::Database),
    ("redis-cli FLUSHALL", "FLUSHALL", CommandKind::Database),
    ("dropdb prod", "dropdb", CommandKind::Database),
    ("kubectl delete pod x", "kubectl delete", CommandKind::Containers),
    ("kubectl -n prod delete deploy api", "kubectl delete", CommandKind::Containers),
    ("docker rm -f c", "docker/podman rm", CommandKind::Containers),
    ("docker rmi img", "docker/podman rmi", CommandKind::Containers),
    ("docker system prune -af", "docker/podman prune", CommandKind::Containers),
    ("docker volume rm v", "docker/podman volume rm", CommandKind::Containers),
    ("docker volume prune", "docker/podman prune", CommandKind::Containers),
    ("docker container prune", "docker/podman prune", CommandKind::Containers),
    ("docker image prune -a", "docker/podman prune", CommandKind::Containers),
    ("docker -H tcp://x rm c", "docker/podman rm", CommandKind::Containers),
    ("podman rm x", "docker/podman rm", CommandKind::Containers),
    ("docker compose down -v", "docker compose down --volumes", CommandKind::Containers),
    ("docker-compose down --volumes", "docker compose down --volumes", CommandKind::Containers),
    ("helm uninstall release", "helm uninstall", CommandKind::Containers),
    ("terraform destroy -auto-approve", "terraform destroy", CommandKind::Containers),
    ("terraform -chdir=infra apply -destroy", "terraform destroy", CommandKind::Containers),
    ("chmod -R 700 ~", "recursive chmod of home", CommandKind::Permissions),
    ("chown -R me ~/", "recursive chown of home", CommandKind::Permissions),
    ("chmod 000 ~", "chmod 000 of home", CommandKind::Permissions),
    ("chmod 755 /etc", "chmod of / or a system directory", CommandKind::Permissions),
    ("shutdown -h now", "shutdown", CommandKind::Power),
    ("reboot", "reboot", CommandKind::Power),
    ("poweroff", "poweroff", CommandKind::Power),
    ("halt", "halt", CommandKind::Power),
    ("init 0", "init 0 or 6", CommandKind::Power),
    ("telinit 6", "init 0 or 6", CommandKind::Power),
    ("systemctl poweroff", "systemctl poweroff or reboot", CommandKind::Power),
    ("sudo systemctl reboot", "systemctl poweroff or reboot", CommandKind::Power),
    ("systemctl isolate rescue.target", "systemctl poweroff or reboot", CommandKind::Power),
    ("kill -9 -1", "kill -9 -1", CommandKind::Power),
    ("kill -KILL -1", "kill -9 -1", CommandKind::Power),
    ("kill -s KILL -1", "kill -9 -1", CommandKind::Power),
    ("kill -- -1", "kill -9 -1", CommandKind::Power),
    ("killall5 -9", "killall5", CommandKind::Power),
    ("pkill -9 -u bob", "pkill -u", CommandKind::Power),
    ("mkfs.ext4 disk.img", "mkfs on a file", CommandKind::DiskWipe),
    ("$(echo rm) -rf /", "command name unknown until run", CommandKind::Opaque),
    ("`echo rm` x", "command name unknown until run", CommandKind::Opaque),
    ("$CMD -rf /", "command name unknown until run", CommandKind::Opaque),
    ("sudo \"$RM\" x", "command name unknown until run", CommandKind::Opaque),
    ("$HOME/bin/$TOOL", "command name unknown until run", CommandKind::Opaque),
    ("mkfs.ext4 $DEV", "mkfs on a file", CommandKind::DiskWipe),
    // Wrappers, nesting and odd spellings.
    ("sudo -u root -E rm -rf build", "recursive rm", CommandKind::Delete),
    ("sudo --user=root rm x", "rm", CommandKind::Delete),
    ("doas -u root rm x", "rm", CommandKind::Delete),
    ("env -i PATH=/bin X=1 rm x", "rm", CommandKind::Delete),
    ("env -S 'rm -rf build'", "recursive rm", CommandKind::Delete),
    ("nice -n 10 ionice -c 3 rm x", "rm", CommandKind::Delete),
    ("nice -10 rm x", "rm", CommandKind::Delete),
    ("nohup time command builtin exec rm x", "rm", CommandKind::Delete),
    ("time -p rm x", "rm", CommandKind::Delete),
    ("timeout -s KILL 5 rm x", "rm", CommandKind::Delete),
    ("stdbuf -o L rm x", "rm", CommandKind::Delete),
    ("xargs -0 -n 1 rm -f", "rm", CommandKind::Delete),
    ("xargs -I{} rm {}", "rm", CommandKind::Delete),
    ("busybox rm x", "rm", CommandKind::Delete),
    ("watch -n 5 'rm x'", "rm", CommandKind::Delete),
    ("watch -x rm x", "rm", CommandKind::Delete),
    ("setsid rm x", "rm", CommandKind::Delete),
    ("X=1 LC_ALL=C rm x", "rm", CommandKind::Delete),
    ("/usr/bin/rm x", "rm", CommandKind::Delete),
    ("'rm' x", "rm", CommandKind::Delete),
    ("\"rm\" x", "rm", CommandKind::Delete),
    ("r''m x", "rm", CommandKind::Delete),
    ("$'\\x72\\x6d' x", "rm", CommandKind::Delete),
    ("RM x", "rm", CommandKind::Delete),
    ("bash -c 'rm x'", "rm", CommandKind::Delete),
    ("bash -lc 'rm x'", "rm", CommandKind::Delete),
    ("sh -c \"rm x\"", "rm", CommandKind::Delete),
    ("zsh -c 'cd /tmp && rm x'", "rm", CommandKind::Delete),
    ("bash -c \"bash -c 'rm x'\"", "rm", CommandKind::Delete),
    ("eval rm x", "rm", CommandKind::Delete),
    ("eval 'rm x; echo'", "rm", CommandKind::Delete),
    ("eval eval eval rm x", "rm", CommandKind::Delete),
    ("su -c 'rm x' root", "rm", CommandKind::Delete),
    ("ssh host rm -rf /srv/app", "recursive rm", CommandKind::Delete),
    ("echo 'rm x' | sh", "rm", CommandKind::Delete),
    ("printf 'rm x\\n' | bash", "rm", CommandKind::Delete),
    ("bash <<< 'rm x'", "rm", CommandKind::Delete),
    ("echo $(rm x)", "rm", CommandKind::Delete),
    ("echo `rm x`", "rm", CommandKind::Delete),
    ("diff <(rm x) y", "rm", CommandKind::Delete),
    ("(cd /tmp; rm x)", "rm", CommandKind::Delete),
    ("{ rm x; }", "rm", CommandKind::Delete),
    ("if true; then rm x; fi", "rm", CommandKind::Delete),
    ("echo ok && rm x", "rm", CommandKind::Delete),
    ("echo ok || rm x", "rm", CommandKind::Delete),
    ("ls | rm x", "rm", CommandKind::Delete),
    ("sleep 1 & rm x", "rm", CommandKind::Delete),
    ("echo ok\nrm x", "rm", CommandKind::Delete),
    ("echo 'unterminated; rm x' ; rm -rf \"build", "recursive rm", CommandKind::Delete),
    ("rm -rf build # comment", "recursive rm", CommandKind::Delete),
];

const RISKY: &[(&str, &str, CommandKind)] = &[
    ("echo hi > out.txt", "overwriting redirection", CommandKind::Overwrite),
    ("ls > list.txt", "overwriting redirection", CommandKind::Overwrite),
    ("make 2> err.log", "overwriting redirection", CommandKind::Overwrite),
    ("make &> build.log", "overwriting redirection", CommandKind::Overwrite),
    ("make >| build.log", "overwriting redirection", CommandKind::Overwrite),
    ("{ echo a; echo b; } > out", "overwriting redirection", CommandKind::Overwrite),
    ("(cd x; ls) > out", "overwriting redirection", CommandKind::Overwrite),
    ("dd if=/dev/zero of=./disk.img bs=1M count=1", "dd onto a file", CommandKind::Overwrite),
    ("date | tee today.txt", "tee onto a file", CommandKind::Overwrite),
];

/// Harmless look-alikes: allowed in both modes with no intent at all.
const HARMLESS: &[&str] = &[
    "echo rm -rf /",
    "printf 'rm -rf'",
    "grep -r delete .",
    "ls --format=long",
    "man rm",
    "which rm",
    "type rm",
    "rm --help",
    "rmdir --version",
    "git rm --cached x",
    "git rm -n x",
    "git status",
    "cat file > /dev/null",
    "echo hi >> log",
    "ls 2>&1",
    "echo done >&2",
    "ls -la > /dev/null 2>&1",
    "make 2>/dev/stderr",
    "history | grep rm",
    "docker ps",
    "docker compose down",
    "kubectl get pods",
    "kubectl delete --help",
    "kubectl delete pod x --dry-run=client",
    "SELECT * FROM users WHERE id=1",
    "SELECT * FROM users WHERE id=1;",
    "DELETE FROM users WHERE id = 3;",
    "UPDATE users SET name = 'x;y' WHERE id = 1;",
    "UPDATE t SET a = (SELECT 1) WHERE id = 2;",
    "echo \"DELETE FROM users WHERE id = 3\" | psql",
    "psql -c 'SELECT 1 -- DROP TABLE x'",
    "SELECT 'a'; -- DROP TABLE users",
    "git push",
    "git push origin main",
    "git checkout -b new",
    "git checkout main",
    "git checkout -b feature origin/feature",
    "git restore --staged x",
    "git branch -d merged",
    "git clean -n",
    "git clean -fn",
    "git stash",
    "git stash list",
    "git log --format=%H",
    "git reset HEAD~1",
    "find . -name '*.rs'",
    "find / -name passwd",
    "dd if=/dev/sda of=/dev/null bs=1M count=1",
    "chmod -R u+w ./build",
    "chmod +x script.sh",
    "chmod 700 ~",
    "chown me file.txt",
    "cd ~",
    "ls /",
    "ls ~",
    "command -v rm",
    "sudo -l",
    "sudo ls /root",
    "env | grep PATH",
    "xargs echo",
    "time ls",
    "watch -n 1 ls",
    "fdisk -l",
    "sudo fdisk -l /dev/sda",
    "parted -l",
    "sudo parted /dev/sda print",
    "wipefs /dev/sda",
    "sgdisk -p /dev/sda",
    "shutdown -c",
    "kill -9 1234",
    "kill -l",
    "pkill firefox",
    "systemctl status",
    "systemctl restart nginx",
    "crontab -l",
    "tee -a log.txt",
    "echo 'rm -rf /' > /dev/null",
    "sleep 1 && echo ok",
    "helm list",
    "terraform plan",
    "terraform plan -destroy",
    "sh script.sh",
    "bash -c 'echo hi'",
    "eval echo hi",
    "echo $(date)",
    "diff <(ls a) <(ls b)",
    "read x < input.txt",
    "cat << EOF",
    "$HOME/bin/tool --version",
    "~/bin/build",
    "mv a /dev/null.txt",
    "cp -r src dest/",
    "cp a b c dir",
    "cp -n a b",
    "mv -i a b",
    "cp --backup=numbered a b",
    "cp -t dir a",
    "apt update && apt upgrade",
    "echo f(){ echo; }",
    "",
    "   ",
    "\n",
];

#[test]
fn catastrophic_lines_are_refused_in_every_mode_whatever_the_intent() {
    for (line, rule, kind) in CATASTROPHIC {
        let f = first(line);
        assert_eq!((f.rule, f.severity, f.kind), (*rule, Severity::Catastrophic, *kind), "line {line:?}");
        for (mode, intent) in [(U, ""), (U, EVERYTHING), (I, ""), (I, EVERYTHING)] {
            let v = check_command(line, mode, intent);
            assert_eq!(refused_with(&v), Some((*rule, false)), "line {line:?} {mode:?} intent {intent:?}: {v:?}");
        }
    }
}

/// An intent that asks for `kind`, and one that explicitly does not.
fn intents(kind: CommandKind) -> (&'static str, &'static str) {
    match kind {
        CommandKind::Delete => ("delete the old build files", "don't delete anything"),
        CommandKind::DiskWipe => ("wipe the disk image", "do not wipe or format anything"),
        CommandKind::DiscardChanges => ("discard my local changes", "don't reset or discard anything"),
        CommandKind::RewriteHistory => ("force push the branch", "don't force push; don't delete branches"),
        CommandKind::Database => ("drop the old table and delete the rows", "don't drop or delete anything"),
        CommandKind::Containers => ("remove the old containers", "do not remove or prune anything"),
        CommandKind::Permissions => ("fix the permissions of my home folder", "don't change any permission"),
        CommandKind::Power => ("restart the computer", "don't restart or shut down"),
        CommandKind::Overwrite => ("empty the log file", "don't empty or overwrite anything"),
        CommandKind::Opaque => ("do it", "don't"),
    }
}

#[test]
fn destructive_lines_need_the_users_intent() {
    for (line, rule, kind) in DESTRUCTIVE {
        let findings = destructive_commands(line);
        let f = first(line);
        assert_eq!((f.rule, f.severity, f.kind), (*rule, Severity::Destructive, *kind), "line {line:?}: {findings:?}");
        assert!(findings.iter().all(|f| f.severity != Severity::Catastrophic), "line {line:?}: {findings:?}");
        let (asks, refuses) = intents(*kind);
        // Unattended: refused whatever the intent, never askable.
        for intent in ["", asks, EVERYTHING] {
            let v = check_command(line, U, intent);
            assert_eq!(refused_with(&v), Some((*rule, false)), "line {line:?} unattended {intent:?}: {v:?}");
        }
        // Interactive: refused (askable) without an intent that asks, or with one that negates it.
        for intent in ["", "open the terminal", refuses] {
            let v = check_command(line, I, intent);
            assert_eq!(refused_with(&v), Some((*rule, true)), "line {line:?} interactive {intent:?}: {v:?}");
        }
        // Interactive with an intent that asks for this kind: allowed when every finding is of that kind;
        // what cannot be checked is never backed.
        if *kind == CommandKind::Opaque {
            let v = check_command(line, I, EVERYTHING);
            assert_eq!(refused_with(&v), Some((*rule, true)), "line {line:?} interactive: {v:?}");
        } else if findings.iter().all(|f| f.kind == *kind || f.severity == Severity::Risky) {
            let v = check_command(line, I, asks);
            assert_eq!(v, CommandVerdict::AllowedByIntent { rule }, "line {line:?} interactive {asks:?}");
        }
    }
}

/// Answers every path with `state`, recording what was asked.
fn files(state: FileState, asked: &mut Vec<String>) -> impl FnMut(&[String]) -> Vec<FileState> + '_ {
    move |paths: &[String]| {
        asked.extend(paths.iter().cloned());
        vec![state; paths.len()]
    }
}

#[test]
fn overwrites_are_judged_by_whether_the_file_exists() {
    use FileState::*;
    for (line, rule, kind) in RISKY {
        let f = first(line);
        assert_eq!((f.rule, f.severity, f.kind), (*rule, Severity::Risky, *kind), "line {line:?}");
        assert!(f.file.is_some(), "line {line:?} names the file it writes over");
        assert!(destructive_commands(line).iter().all(|f| f.severity == Severity::Risky), "line {line:?}");
        // Over an existing file, or one nobody can check: destructive in both modes.
        for state in [Existing, Unknown] {
            for mode in [U, I] {
                let mut asked = Vec::new();
                let v = check_command_with(line, mode, "", &mut files(state, &mut asked));
                assert_eq!(refused_with(&v), Some((*rule, mode == I)), "line {line:?} {state:?} {mode:?}: {v:?}");
            }
            let v = check_command_with(line, U, EVERYTHING, &mut files(state, &mut Vec::new()));
            assert_eq!(refused_with(&v), Some((*rule, false)), "line {line:?} unattended, asked for");
            let v = check_command_with(line, I, "overwrite the old file", &mut files(state, &mut Vec::new()));
            assert_eq!(v, CommandVerdict::AllowedByIntent { rule }, "line {line:?} interactive, asked for");
        }
        // Onto a new file: nothing is destroyed, in either mode. (Unless a `cd` came first: then
        // which file is meant cannot be told, and it counts.)
        for mode in [U, I] {
            let v = check_command_with(line, mode, "", &mut files(Absent, &mut Vec::new()));
            let resolvable = f.file.as_ref().and_then(FileWrite::lookup).is_some();
            assert_eq!(v.is_allowed(), resolvable, "line {line:?} onto a new file, {mode:?}: {v:?}");
        }
        assert_eq!(check_command(line, U, ""), check_command_with(line, U, "", &mut files(Unknown, &mut Vec::new())));
    }
    // The message says what is known of the file.
    let reason = |state| match check_command_with("echo hi > notes.txt", I, "", &mut files(state, &mut Vec::new())) {
        CommandVerdict::Refused { reason, .. } => reason,
        v => panic!("{v:?}"),
    };
    assert!(reason(Existing).contains("\"notes.txt\" exists"), "{}", reason(Existing));
    assert!(reason(Unknown).contains("whether \"notes.txt\" exists cannot be checked"), "{}", reason(Unknown));
}

#[test]
fn only_paths_text_can_resolve_are_looked_up() {
    use FileState::*;
    let asked = |line: &str| {
        let mut asked = Vec::new();
        let v = check_command_with(line, U, "", &mut files(Absent, &mut asked));
        (asked, v.is_allowed())
    };
    assert_eq!(asked("echo hi > out.txt"), (vec!["out.txt".to_string()], true));
    assert_eq!(asked("echo a > x; echo b > x; date | tee y ~/z"), (vec!["x".into(), "y".into(), "~/z".into()], true));
    assert_eq!(asked("ls > /tmp/list"), (vec!["/tmp/list".to_string()], true));
    // Nothing to look up, nothing asked.
    assert_eq!(asked("ls -l"), (vec![], true));
    assert_eq!(asked("ls >> list.txt"), (vec![], true));
    // Variables, globs, `~user` and paths after a cd cannot be resolved: judged as if there.
    for line in [
        "echo hi > $OUT",
        "echo hi > *.txt",
        "echo hi > ~bob/x",
        "cd /srv && echo hi > out.txt",
        "pushd x; date | tee log",
    ] {
        assert_eq!(asked(line), (vec![], false), "line {line:?}");
    }
    // An absolute path after a cd is still resolvable.
    assert_eq!(asked("cd /srv && echo hi > /tmp/out.txt"), (vec!["/tmp/out.txt".to_string()], true));
}

#[test]
fn copies_and_moves_count_onto_an_existing_file_only() {
    use FileState::*;
    for (line, rule, path) in [
        ("cp a b", "cp onto an existing file", "b"),
        ("cp -f notes.txt backup/notes.txt", "cp onto an existing file", "backup/notes.txt"),
        ("sudo install -D x /etc/app.conf", "cp onto an existing file", "/etc/app.conf"),
        ("mv draft.txt final.txt", "mv onto an existing file", "final.txt"),
        ("mv -f -- a b", "mv onto an existing file", "b"),
    ] {
        let f = first(line);
        assert_eq!((f.rule, f.file.as_ref().map(|f| f.path.as_str())), (rule, Some(path)), "line {line:?}");
        let mut asked = Vec::new();
        let v = check_command_with(line, U, "", &mut files(Existing, &mut asked));
        assert_eq!(refused_with(&v), Some((rule, false)), "line {line:?}");
        assert_eq!(asked, [path]);
        let v = check_command_with(line, I, "", &mut files(Existing, &mut Vec::new()));
        assert_eq!(refused_with(&v), Some((rule, true)), "line {line:?}");
        let v = check_command_with(line, I, "replace the old version", &mut files(Existing, &mut Vec::new()));
        assert_eq!(v, CommandVerdict::AllowedByIntent { rule }, "line {line:?}");
        // Unknown or new: most copies make new files.
        for state in [Unknown, Absent] {
            let v = check_command_with(line, U, "", &mut files(state, &mut Vec::new()));
            assert_eq!(v, CommandVerdict::Allowed, "line {line:?} {state:?}");
        }
    }
}

#[test]
fn harmless_look_alikes_are_allowed_in_both_modes() {
    for line in HARMLESS {
        // Nothing, or only a copy or move onto a file whose existence nobody can tell.
        let counts = settle_files(destructive_commands(line), &mut |p| vec![FileState::Unknown; p.len()]);
        assert_eq!(counts, [], "line {line:?}");
        assert_eq!(check_command(line, U, ""), CommandVerdict::Allowed, "line {line:?}");
        assert_eq!(check_command(line, I, ""), CommandVerdict::Allowed, "line {line:?}");
    }
}

#[test]
fn intent_backing_is_per_kind_and_negation_aware() {
    let v = |line: &str, intent: &str| check_command(line, I, intent);
    assert_eq!(v("rm -rf build", "delete the build folder"), CommandVerdict::AllowedByIntent { rule: "recursive rm" });
    assert_eq!(v("rm -rf build", "please remove build/"), CommandVerdict::AllowedByIntent { rule: "recursive rm" });
    assert_eq!(refused_with(&v("rm -rf build", "don't delete anything")), Some(("recursive rm", true)));
    assert_eq!(refused_with(&v("rm -rf build", "build the project")), Some(("recursive rm", true)));
    assert_eq!(refused_with(&v("rm -rf build", "")), Some(("recursive rm", true)));
    assert_eq!(
        refused_with(&check_command("rm -rf build", U, "delete the build folder")),
        Some(("recursive rm", false))
    );
    // A deletion request does not back other kinds.
    assert_eq!(refused_with(&v("git reset --hard", "delete the build folder")), Some(("git reset --hard", true)));
    assert_eq!(refused_with(&v("reboot", "delete the build folder")), Some(("reboot", true)));
    assert_eq!(v("git reset --hard", "reset my branch"), CommandVerdict::AllowedByIntent { rule: "git reset --hard" });
    assert_eq!(refused_with(&v("git reset --hard", "don't reset anything")), Some(("git reset --hard", true)));
    assert_eq!(v("DROP TABLE users;", "drop the users table"), CommandVerdict::AllowedByIntent { rule: "DROP TABLE" });
    assert_eq!(refused_with(&v("DROP TABLE users;", "do not drop tables")), Some(("DROP TABLE", true)));
    assert_eq!(v("sudo reboot", "restart the computer"), CommandVerdict::AllowedByIntent { rule: "reboot" });
    assert_eq!(v("mkfs.vfat disk.img", "format the image"), CommandVerdict::AllowedByIntent { rule: "mkfs on a file" });
    // Every destructive command in the line must be backed.
    assert_eq!(
        refused_with(&v("rm -rf build && git reset --hard", "delete the build folder")),
        Some(("git reset --hard", true))
    );
    // A write onto a new file passes alongside a backed deletion; onto one that may exist it must
    // be backed too.
    assert_eq!(
        check_command_with("rm -rf build > log.txt", I, "delete the build folder", &mut |p| vec![
            FileState::Absent;
            p.len()
        ]),
        CommandVerdict::AllowedByIntent { rule: "recursive rm" }
    );
    assert_eq!(
        refused_with(&v("rm -rf build > log.txt", "delete the build folder")),
        Some(("overwriting redirection", true))
    );
    // Catastrophic is never backed; lines too deep to judge never are either.
    assert_eq!(
        refused_with(&v("rm -rf /", "delete everything on the disk")),
        Some(("recursive rm of / or home", false))
    );
    let deep = format!("{}rm x{}", "$(".repeat(40), ")".repeat(40));
    assert_eq!(refused_with(&v(&deep, EVERYTHING)), Some(("nesting too deep to judge", true)));
    assert!(!intent_backs_kind(EVERYTHING, CommandKind::Opaque));
    assert!(!intent_backs_kind("", CommandKind::Power));
}

#[test]
fn findings_come_most_severe_first() {
    let f = destructive_commands("echo hi > out; rm -rf build; rm -rf /; git push -f");
    let got: Vec<(&str, Severity)> = f.iter().map(|f| (f.rule, f.severity)).collect();
    assert_eq!(
        got,
        [
            ("recursive rm of / or home", Severity::Catastrophic),
            ("recursive rm", Severity::Destructive),
            ("git push --force", Severity::Destructive),
            ("overwriting redirection", Severity::Risky),
        ]
    );
    assert_eq!(f[0].command, "rm -rf /");
    assert_eq!(f[1].command, "rm -rf build");
    // Each (rule, command) once, however often it is reached.
    assert_eq!(destructive_commands("rm x; rm x; echo $(rm x)").len(), 1);
}

#[test]
fn findings_name_the_simple_command() {
    assert_eq!(first("cd /tmp && sudo  'rm'  -rf   victim | cat").command, "sudo rm -rf victim");
    assert_eq!(first("bash -c 'ls; rm -rf x'").command, "rm -rf x");
    assert_eq!(first("psql -c \"DROP TABLE users\"").command, "psql -c \"DROP TABLE users\"");
    assert_eq!(first("SELECT 1;  DROP   TABLE users;").command, "DROP TABLE users");
    let long = format!("rm -rf {}", "x".repeat(300));
    assert_eq!(first(&long).command.chars().count(), 80);
}

#[test]
fn refusals_explain_themselves() {
    let reason = |line: &str, mode, intent: &str| match check_command(line, mode, intent) {
        CommandVerdict::Refused { reason, .. } => reason,
        v => panic!("expected a refusal of {line:?}, got {v:?}"),
    };
    let r = reason("rm -rf /tmp/victim", I, "open the browser");
    assert!(r.starts_with("refusing to run \"rm -rf /tmp/victim\" in the terminal: it is recursive rm"), "{r}");
    assert!(r.contains("deletes files"), "{r}");
    assert!(r.contains("the user's request does not ask for deleting or removing something"), "{r}");
    let r = reason("git reset --hard", U, "reset everything");
    assert!(r.contains("unattended mode") && r.contains("nobody is watching"), "{r}");
    let r = reason("echo hi > out.txt", U, "");
    assert!(r.contains("nobody is watching"), "{r}");
    let r = reason("rm -rf ~", I, EVERYTHING);
    assert!(r.contains("never done for an agent"), "{r}");
    let r = reason("echo \"quote\" ; rm -rf \"a b\"", I, "");
    assert!(r.contains(r#""rm -rf 'a b'""#), "{r}");
    let long = format!("rm -rf {}", "y".repeat(500));
    let r = reason(&long, U, "");
    assert!(r.chars().count() < 350, "{r}");
    let CommandVerdict::Refused { command, .. } = check_command(&long, U, "") else { panic!("refused") };
    assert!(command.ends_with('…') && command.chars().count() == 80, "{command}");
}

#[test]
fn pathological_input_is_bounded() {
    let n = 50_000;
    let cases = [
        "$(".repeat(n),
        "(".repeat(n),
        ")".repeat(n),
        "`".repeat(n),
        "${".repeat(n),
        "'".repeat(n),
        "\"".repeat(n),
        "\\".repeat(n),
        "<(".repeat(n),
        ":(){".repeat(n / 4),
        "eval ".repeat(n / 4),
        "bash -c ".repeat(n / 8),
        format!("{}{}", "\"$(".repeat(n / 4), "rm x"),
        "; ".repeat(n),
        "a|".repeat(n),
        "x ".repeat(n),
    ];
    for line in &cases {
        let _ = destructive_commands(line);
        let _ = check_command(line, U, EVERYTHING);
    }
    // Deep nesting still refuses what it hides.
    for line in [
        format!("{}rm -rf /", "eval ".repeat(n / 4)),
        format!("{}rm x{}", "$(".repeat(n / 10), ")".repeat(n / 10)),
        format!("{}rm x{}", "(".repeat(n), ")".repeat(n)),
        format!("{}rm x", "sudo ".repeat(n / 4)),
        format!("{}rm x", "find . -exec ".repeat(n / 20)),
    ] {
        assert!(!check_command(&line, U, "").is_allowed(), "{}", &line[..40]);
        assert!(!check_command(&line, I, "").is_allowed(), "{}", &line[..40]);
    }
}

// ---- properties ----

/// Destructive lines for the properties: (pieces joined by blanks, the command word may be re-quoted,
/// wrappers may be put in front, severity).
const BASES: &[(&[&str], bool, bool, Severity)] = &[
    (&["rm", "-rf", "/"], true, true, Severity::Catastrophic),
    (&["rm", "-rf", "~"], true, true, Severity::Catastrophic),
    (&["rm", "-rf", "$HOME"], true, true, Severity::Catastrophic),
    (&["rm", "-fr", "/*"], true, true, Severity::Catastrophic),
    (&["rm", "-rf", "build"], true, true, Severity::Destructive),
    (&["rm", "notes.txt"], true, true, Severity::Destructive),
    (&["rm", "-rf", "$DIR"], true, true, Severity::Destructive),
    (&["rmdir", "old"], true, true, Severity::Destructive),
    (&["unlink", "f"], true, true, Severity::Destructive),
    (&["shred", "-u", "f"], true, true, Severity::Destructive),
    (&["find", ".", "-name", "'*.o'", "-delete"], true, true, Severity::Destructive),
    (&["find", ".", "-exec", "rm", "{}", "+"], true, true, Severity::Destructive),
    (&["dd", "if=/dev/zero", "of=/dev/sda"], true, true, Severity::Catastrophic),
    (&["mkfs.ext4", "/dev/sdb1"], true, true, Severity::Catastrophic),
    (&["wipefs", "-a", "/dev/sda"], true, true, Severity::Catastrophic),
    (&["blkdiscard", "/dev/nvme0n1"], true, true, Severity::Catastrophic),
    (&["sgdisk", "-Z", "/dev/sda"], true, true, Severity::Catastrophic),
    (&["cat", "x.img", ">", "/dev/sda"], true, true, Severity::Catastrophic),
    (&["truncate", "-s", "0", "log"], true, true, Severity::Destructive),
    (&[">", "out.txt"], false, false, Severity::Destructive),
    (&[":", ">", "out.txt"], false, false, Severity::Destructive),
    (&["echo", "hi", ">", "out.txt"], true, true, Severity::Risky),
    (&["dd", "if=a", "of=b.img"], true, true, Severity::Risky),
    (&["git", "reset", "--hard"], true, true, Severity::Destructive),
    (&["git", "clean", "-fdx"], true, true, Severity::Destructive),
    (&["git", "checkout", "--", "."], true, true, Severity::Destructive),
    (&["git", "restore", "src"], true, true, Severity::Destructive),
    (&["git", "stash", "drop"], true, true, Severity::Destructive),
    (&["git", "branch", "-D", "x"], true, true, Severity::Destructive),
    (&["git", "push", "--force"], true, true, Severity::Destructive),
    (&["git", "push", "origin", "+main"], true, true, Severity::Destructive),
    (&["git", "rm", "f"], true, true, Severity::Destructive),
    (&["psql", "-c", "\"DROP TABLE users\""], true, true, Severity::Destructive),
    (&["mysql", "-e", "\"DELETE FROM users\""], true, true, Severity::Destructive),
    (&["sqlite3", "db", "\"TRUNCATE TABLE t\""], true, true, Severity::Destructive),
    (&["DROP", "TABLE", "users;"], false, true, Severity::Destructive),
    (&["UPDATE", "users", "SET", "admin=1;"], false, true, Severity::Destructive),
    (&["kubectl", "delete", "pod", "x"], true, true, Severity::Destructive),
    (&["docker", "system", "prune", "-af"], true, true, Severity::Destructive),
    (&["docker", "volume", "rm", "v"], true, true, Severity::Destructive),
    (&["podman", "rmi", "img"], true, true, Severity::Destructive),
    (&["helm", "uninstall", "r"], true, true, Severity::Destructive),
    (&["terraform", "destroy"], true, true, Severity::Destructive),
    (&["chmod", "-R", "777", "/"], true, true, Severity::Catastrophic),
    (&["chown", "-R", "me", "~"], true, true, Severity::Destructive),
    (&[":(){", ":|:&", "};:"], false, false, Severity::Catastrophic),
    (&["shutdown", "-h", "now"], true, true, Severity::Destructive),
    (&["reboot"], true, true, Severity::Destructive),
    (&["systemctl", "poweroff"], true, true, Severity::Destructive),
    (&["kill", "-9", "-1"], true, true, Severity::Destructive),
    (&["pkill", "-9", "-u", "bob"], true, true, Severity::Destructive),
    (&["mv", "f", "/dev/null"], true, true, Severity::Destructive),
    (&["crontab", "-r"], true, true, Severity::Destructive),
];

const WRAPPERS: &[&str] = &[
    "",
    "sudo ",
    "sudo -u root ",
    "sudo -E ",
    "doas ",
    "env ",
    "env -i PATH=/bin ",
    "nice ",
    "nice -n 10 ",
    "ionice -c 3 ",
    "nohup ",
    "time ",
    "command ",
    "builtin ",
    "exec ",
    "timeout 10 ",
    "stdbuf -oL ",
    "xargs ",
    "xargs -0 ",
    "busybox ",
    "watch ",
    "X=1 ",
    "LC_ALL=C X='a b' ",
    "sudo env X=1 nice -n 5 ",
];

fn quote_word(w: &str, how: usize) -> String {
    match how {
        0 => w.to_string(),
        1 => format!("\\{w}"),
        2 => format!("'{w}'"),
        3 => format!("\"{w}\""),
        4 => format!("/usr/bin/{w}"),
        5 => format!("/bin/{w}"),
        _ => {
            let mut cs = w.chars();
            let head: String = cs.next().into_iter().collect();
            format!("{head}''{}", cs.as_str())
        }
    }
}
const QUOTINGS: usize = 7;
const GAPS: &[&str] = &[" ", "  ", "\t", " \t "];

fn build(base: usize, wrapper: usize, quoting: usize, gaps: &[usize]) -> (String, Severity) {
    let (pieces, quotable, wrappable, severity) = BASES[base];
    let mut line = if wrappable { WRAPPERS[wrapper].to_string() } else { String::new() };
    for (k, piece) in pieces.iter().enumerate() {
        if k > 0 {
            line.push_str(GAPS[gaps.get(k).copied().unwrap_or(0) % GAPS.len()]);
        }
        if k == 0 && quotable {
            line.push_str(&quote_word(piece, quoting));
        } else {
            line.push_str(piece);
        }
    }
    (line, severity)
}

/// `line` is refused unattended and interactively (with no intent, nothing known of its files), and its most
/// severe finding has `severity`.
fn assert_refused(line: &str, severity: Severity) -> Result<(), TestCaseError> {
    let found = destructive_commands(line);
    prop_assert_eq!(found.first().map(|f| f.severity), Some(severity), "line {:?}: {:?}", line, found);
    prop_assert!(!check_command(line, U, "").is_allowed(), "unattended {:?}", line);
    let v = check_command(line, I, "");
    prop_assert!(!v.is_allowed(), "interactive {:?}: {:?}", line, v);
    Ok(())
}

fn variants(line: &str) -> Vec<String> {
    let mut out = vec![
        line.to_string(),
        format!("echo ok; {line}"),
        format!("{line} && echo ok"),
        format!("echo ok || {line}"),
        format!("({line})"),
        format!("$({line})"),
        format!("echo $({line})"),
        format!("{{ {line}; }}"),
        format!("if true; then {line}; fi"),
    ];
    if !line.contains('\'') {
        out.push(format!("bash -c '{line}'"));
        out.push(format!("sh -c '{line}'"));
        out.push(format!("eval '{line}'"));
    }
    if !line.contains('`') {
        out.push(format!("echo `{line}`"));
    }
    out
}

#[test]
fn every_generated_line_is_refused_under_every_wrapper_and_quoting() {
    for base in 0..BASES.len() {
        for wrapper in 0..WRAPPERS.len() {
            for quoting in 0..QUOTINGS {
                let (line, severity) = build(base, wrapper, quoting, &[]);
                if let Err(e) = assert_refused(&line, severity) {
                    panic!("{e}");
                }
            }
        }
    }
}

fn shellish() -> impl Strategy<Value = String> {
    let tokens = prop::sample::select(vec![
        "rm",
        "-rf",
        "/",
        "~",
        "$HOME",
        "'",
        "\"",
        "\\",
        "$(",
        ")",
        "(",
        "`",
        "{",
        "}",
        ";",
        "&&",
        "||",
        "|",
        "&",
        ">",
        ">>",
        "2>&1",
        "<<<",
        "bash",
        "-c",
        "eval",
        "sudo",
        "xargs",
        "find",
        "-exec",
        "-delete",
        "DROP",
        "TABLE",
        "DELETE",
        "FROM",
        "WHERE",
        "--",
        "/*",
        "#",
        "\n",
        "$'\\x72m'",
        "${",
        "git",
        "reset",
        "--hard",
        ":(){",
        ":|:&",
        "dd",
        "of=/dev/sda",
        "x",
        " ",
        "\t",
    ]);
    prop::collection::vec(tokens, 0..40).prop_map(|t| t.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Any input terminates without panicking, and the findings and verdicts agree with each other.
    #[test]
    fn arbitrary_input_is_judged_consistently(line in prop_oneof![any::<String>(), "[ -~\n\t]{0,120}", shellish()]) {
        let found = destructive_commands(&line);
        prop_assert!(found.windows(2).all(|w| w[0].severity <= w[1].severity), "{:?}", found);
        prop_assert!(found.iter().all(|f| f.command.chars().count() <= 80));
        // With nothing known of the files, a copy or move alone is all that does not count.
        let counts = settle_files(found.clone(), &mut |p| vec![FileState::Unknown; p.len()]);
        prop_assert!(counts.iter().all(|f| f.severity != Severity::Risky));
        let refuses_interactive = !counts.is_empty();
        prop_assert_eq!(!check_command(&line, U, "").is_allowed(), !counts.is_empty());
        prop_assert_eq!(!check_command(&line, I, "").is_allowed(), refuses_interactive);
        prop_assert_eq!(!check_command(&line, I, EVERYTHING).is_allowed(), refuses_interactive && found.iter().any(
            |f| f.severity == Severity::Catastrophic || f.kind == CommandKind::Opaque
                || (f.severity == Severity::Destructive && !intent_backs_kind(EVERYTHING, f.kind))
        ));
        prop_assert_eq!(destructive_commands(&line), found, "deterministic");
    }

    /// Chaining and wrapping never make a refused line pass.
    #[test]
    fn chaining_and_wrapping_never_unlock(
        base in 0..BASES.len(),
        wrapper in 0..WRAPPERS.len(),
        quoting in 0..QUOTINGS,
        gaps in prop::collection::vec(0..GAPS.len(), 6),
    ) {
        let (line, severity) = build(base, wrapper, quoting, &gaps);
        for v in variants(&line) {
            // Nesting may add nothing but may not lower the severity.
            let found = destructive_commands(&v);
            prop_assert!(found.first().is_some_and(|f| f.severity <= severity), "{:?}: {:?}", v, found);
            prop_assert!(!check_command(&v, U, "").is_allowed(), "unattended {:?}", v);
            prop_assert!(!check_command(&v, I, "").is_allowed(), "interactive {:?}", v);
        }
    }

    /// Surrounding whitespace and a `sudo` in front change nothing.
    #[test]
    fn whitespace_and_sudo_change_nothing(
        base in 0..BASES.len(),
        wrapper in 0..WRAPPERS.len(),
        quoting in 0..QUOTINGS,
        lead in "[ \t\n]{0,6}",
        trail in "[ \t\n]{0,6}",
    ) {
        let (line, severity) = build(base, wrapper, quoting, &[]);
        assert_refused(&format!("{lead}{line}{trail}"), severity)?;
        assert_refused(&format!("sudo {line}"), severity)?;
        assert_refused(&format!("{lead}sudo {line}{trail}"), severity)?;
    }
}

/// Inline interpreter code: deleting, running a command line and writing over a file are judged like
/// the shell commands that do the same; harmless code runs.
#[test]
fn inline_interpreter_code_is_judged_for_the_same_effects() {
    let refused: &[(&str, &str)] = &[
        ("python3 -c \"import shutil; shutil.rmtree('victim')\"", "file deletion in inline code"),
        ("python3 -c \"__import__('os').unlink('notes.txt')\"", "file deletion in inline code"),
        ("perl -e 'system(\"rm -rf victim\")'", "recursive rm"),
        ("perl -e 'use File::Path; rmtree(\"victim\")'", "file deletion in inline code"),
        ("ruby -e 'require \"fileutils\"; FileUtils.rm_rf(\"victim\")'", "file deletion in inline code"),
        ("node -e \"require('fs').rmSync('victim', {recursive: true})\"", "file deletion in inline code"),
        ("node -e \"require('child_process').execSync('rm -rf victim')\"", "recursive rm"),
        ("php -r 'system(\"rm -rf victim\");'", "recursive rm"),
        ("lua -e 'os.execute(\"rm -r victim\")'", "recursive rm"),
        ("awk 'BEGIN { system(\"rm -rf victim\") }'", "recursive rm"),
        ("python3 -c 'import subprocess; subprocess.run([\"git\", \"reset\", \"--hard\"])'", "git reset --hard"),
        ("sudo python3 -c \"import shutil; shutil.rmtree('victim')\"", "file deletion in inline code"),
        ("python3 <<< \"import shutil; shutil.rmtree('victim')\"", "file deletion in inline code"),
        ("echo \"unlink 'notes.txt'\" | perl", "file deletion in inline code"),
        ("bash -c \"python3 -c 'import os; os.system(\\\"rm -rf victim\\\")'\"", "recursive rm"),
        ("python3 -c 'import os; os.system(input())'", "command computed in inline code"),
    ];
    for (line, rule) in refused {
        let v = check_command(line, U, "");
        assert_eq!(refused_with(&v).map(|(r, _)| r), Some(*rule), "{line}: {v:?}");
        let v = check_command(line, I, "check the disk usage");
        assert!(matches!(v, CommandVerdict::Refused { can_ask: true, .. }), "{line}: {v:?}");
    }
    // Backed like the shell command it amounts to; a computed command line never is.
    assert_eq!(
        check_command("python3 -c \"import shutil; shutil.rmtree('victim')\"", I, "delete the victim folder"),
        CommandVerdict::AllowedByIntent { rule: "file deletion in inline code" }
    );
    assert!(!check_command("python3 -c 'import os; os.system(input())'", I, EVERYTHING).is_allowed());
    // The whole system, in any mode.
    for line in ["python3 -c \"import shutil; shutil.rmtree('/')\"", "perl -e 'system(\"rm -rf ~\")'"] {
        let v = check_command(line, I, EVERYTHING);
        assert!(matches!(v, CommandVerdict::Refused { can_ask: false, .. }), "{line}: {v:?}");
    }
    // Writing over a file counts where the file exists, as a redirection would.
    let line = "python3 -c \"open('notes.txt', 'w').write('')\"";
    let mut asked = Vec::new();
    assert!(!check_command_with(line, U, "", &mut files(FileState::Existing, &mut asked)).is_allowed());
    assert_eq!(asked, vec!["notes.txt".to_string()]);
    let mut asked = Vec::new();
    assert!(check_command_with(line, U, "", &mut files(FileState::Absent, &mut asked)).is_allowed());
    // Harmless code runs, unattended too.
    for line in [
        "python3 -c 'import shutil; print(shutil.disk_usage(\"/\"))'",
        "python3 -c 'l = [3, 1]; l.remove(1); print(l)'",
        "perl -ne 'print if /rm -rf/' notes.txt",
        "node -e \"console.log(/a/.exec('abc'))\"",
        "awk '{ s += $1 } END { print s }' sizes.txt",
        "python3 cleanup.py",
        "python3 -m http.server",
    ] {
        assert_eq!(check_command(line, U, ""), CommandVerdict::Allowed, "{line}");
    }
}
