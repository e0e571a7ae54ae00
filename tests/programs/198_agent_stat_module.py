# Agent-style: interpreting file mode bits with the stat module (no file access).
import stat

modes = [0o100644, 0o100755, 0o040755, 0o120777, 0o100600, 0o020666]
for mode in modes:
    kind = ("dir" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode)
            else "link" if stat.S_ISLNK(mode) else "char" if stat.S_ISCHR(mode) else "other")
    executable = bool(mode & stat.S_IXUSR)
    print(oct(mode), stat.filemode(mode), kind, executable, oct(stat.S_IMODE(mode)), stat.S_IFMT(mode) == stat.S_IFREG)
print(stat.S_IRUSR | stat.S_IWUSR, oct(stat.S_IRWXU), oct(stat.S_IRGRP | stat.S_IROTH))
perms = stat.S_IMODE(0o100640)
print(["r" if perms & b else "-" for b in (stat.S_IRUSR, stat.S_IWUSR, stat.S_IXUSR, stat.S_IRGRP, stat.S_IWGRP)])
