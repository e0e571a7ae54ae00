"""39 programs where an authorized library acts for the code (pandas `eval`, numpy's pickle
loading, `pd.set_option` importing by name, dataclasses generating source, file paths and URLs
given to readers). Several of them get through the in-process executor; in process mode (the
default once numpy / pandas are authorized) none may reach a host secret, a host file, the
network, a process, or host state.

Each program tries for every effect it can: print the secret, write the marker file, connect
to the host's listener, start a process that writes the marker. The test then checks the
effects, not the route: whatever ran inside the worker, nothing of the host was reached.
"""

from __future__ import annotations

import os
import signal
import socket
import threading

import pytest


np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")

SECRET = "corpus-secret-7c1f2d"

# {secret_file} {marker} {marker2} {port} {host_pid} are filled in per test run.
PAYLOADS = {
    "pandas_eval_globals": """
import pandas as pd
pd.eval("f.__globals__['os'].system('touch {marker}')", local_dict={{'f': pd.eval}})
""",
    "pandas_query_globals": """
import pandas as pd
df = pd.DataFrame({{'a': [1]}})
df.query("a.__class__.__init__.__globals__['__builtins__']['open']('{secret_file}').read()")
""",
    "numpy_load_pickle_system": """
import numpy as np
payload = b"cposix\\nsystem\\n(S'touch {marker}'\\ntR."
np.frombuffer(payload, dtype=np.uint8).tofile('p.npy')
np.load('p.npy', allow_pickle=True)
""",
    "numpy_load_pickle_open_secret": """
import numpy as np
payload = b"c__builtin__\\nopen\\n(S'{secret_file}'\\ntR."
np.frombuffer(payload, dtype=np.uint8).tofile('q.npy')
f = np.load('q.npy', allow_pickle=True)
print(f.read())
""",
    "numpy_load_pickle_socket": """
import numpy as np
payload = (b"csocket\\ncreate_connection\\n((S'127.0.0.1'\\nI{port}\\ntR.")
np.frombuffer(payload, dtype=np.uint8).tofile('s.npy')
np.load('s.npy', allow_pickle=True)
""",
    "pandas_set_option_import_by_name": """
import pandas as pd
pd.set_option('plotting.backend', 'subprocess')
pd.Series([1, 2]).plot()
""",
    "pandas_read_pickle_exec": """
import pandas as pd
import numpy as np
payload = b"cbuiltins\\nexec\\n(S'import os; os.system(\\\\'touch {marker2}\\\\')'\\ntR."
np.frombuffer(payload, dtype=np.uint8).tofile('r.pkl')
pd.read_pickle('r.pkl')
""",
    "dataclasses_field_source": """
import dataclasses
C = dataclasses.make_dataclass('C', [('x', int, dataclasses.field(default=0))],
    namespace={{'__annotations__': {{'y = __import__("os").system("touch {marker}")': int}}}})
C()
""",
    "numpy_loadtxt_secret": """
import numpy as np
print(np.loadtxt('{secret_file}', dtype=str))
""",
    "pandas_read_csv_secret": """
import pandas as pd
print(pd.read_csv('{secret_file}', header=None).to_string())
""",
    "pandas_read_csv_url": """
import pandas as pd
print(pd.read_csv('http://127.0.0.1:{port}/data.csv'))
""",
    "pandas_read_json_proc_environ": """
import pandas as pd
print(pd.read_csv('/proc/1/environ', sep='\\0', header=None, engine='python'))
""",
    "numpy_fromfile_environ": """
import numpy as np
print(np.fromfile('/proc/self/environ', dtype=np.uint8).tobytes())
print(np.fromfile('/proc/1/environ', dtype=np.uint8).tobytes())
""",
    "numpy_memmap_secret": """
import numpy as np
print(np.memmap('{secret_file}', dtype=np.uint8, mode='r').tobytes())
""",
    "pandas_to_csv_host_path": """
import pandas as pd
pd.DataFrame({{'a': [1]}}).to_csv('{marker}')
""",
    "numpy_save_host_path": """
import numpy as np
np.save('{marker}', np.zeros(3))
""",
    "pandas_read_json_url": """
import pandas as pd
print(pd.read_json('http://127.0.0.1:{port}/x.json'))
""",
    "pandas_read_csv_file_url": """
import pandas as pd
print(pd.read_csv('file://{secret_file}', header=None))
""",
    "pandas_read_table_secret": """
import pandas as pd
print(pd.read_table('{secret_file}', header=None).iloc[0, 0])
""",
    "pandas_read_fwf_secret": """
import pandas as pd
print(pd.read_fwf('{secret_file}', header=None).iloc[0, 0])
""",
    "pandas_read_pickle_host_path": """
import pandas as pd
print(pd.read_pickle('{secret_file}'))
""",
    "pandas_to_pickle_host_path": """
import pandas as pd
pd.Series([1]).to_pickle('{marker}')
""",
    "pandas_to_json_host_path": """
import pandas as pd
pd.Series([1]).to_json('{marker}')
""",
    "numpy_genfromtxt_secret": """
import numpy as np
print(np.genfromtxt('{secret_file}', dtype=str))
""",
    "numpy_fromregex_secret": """
import numpy as np
print(np.fromregex('{secret_file}', r'(.+)', [('line', 'U64')]))
""",
    "numpy_savetxt_host_path": """
import numpy as np
np.savetxt('{marker}', np.zeros(2))
""",
    "numpy_datasource_url": """
import numpy as np
print(np.lib.npyio.DataSource(None).open('http://127.0.0.1:{port}/x').read())
""",
    "numpy_loadtxt_url": """
import numpy as np
print(np.loadtxt('http://127.0.0.1:{port}/x.txt'))
""",
    "numpy_ctypeslib_native_code": """
import numpy as np
lib = np.ctypeslib.load_library('libc.so.6', '/lib/x86_64-linux-gnu')
lib.system(b'touch {marker}')
""",
    "numpy_npz_pickle": """
import numpy as np
payload = b"cposix\nsystem\n(S'touch {marker}'\ntR."
arr = np.empty(1, dtype=object)
np.savez('z.npz', a=np.frombuffer(payload, dtype=np.uint8))
np.frombuffer(payload, dtype=np.uint8).tofile('z2.npy')
np.load('z2.npy', allow_pickle=True, mmap_mode=None)
""",
    "pandas_dataframe_eval_import": """
import pandas as pd
df = pd.DataFrame({{'a': [1]}})
df.eval("b = a + @__import__('os').system('touch {marker}')")
""",
    "pandas_styler_template": """
import pandas as pd
print(pd.DataFrame({{'a': [1]}}).style.to_html())
print(open('{secret_file}').read())
""",
    "dataclasses_default_factory_source": """
import dataclasses
@dataclasses.dataclass
class D:
    x: int = dataclasses.field(default_factory=lambda: __import__('os').system('touch {marker}'))
D()
""",
    "pandas_module_references_environ_and_system": """
import pandas as pd
try:
    print(pd.io.common.os.environ.get('CORPUS_HOST_SECRET'))
except Exception as e:
    print(type(e).__name__, e)
try:
    pd.core.common.os.system('touch {marker}')
except Exception as e:
    print(type(e).__name__, e)
pd.io.parsers.readers.os.system('touch {marker}')
""",
    "pandas_clipboard_subprocess": """
import pandas as pd
try:
    pd.DataFrame({{'a': [1]}}).to_clipboard()
except Exception as e:
    print(type(e).__name__)
pd.read_clipboard()
""",
    "numpy_open_memmap_host_path": """
import numpy as np
m = np.memmap('{marker}', mode='w+', dtype=np.uint8, shape=(4,))
m[:] = 7
m.flush()
""",
    "numpy_host_process_environ_and_signal": """
import numpy as np
import pandas as pd
for path in ('/proc/{host_pid}/environ', '/proc/{host_pid}/cmdline'):
    try:
        print(np.fromfile(path, dtype=np.uint8).tobytes())
    except Exception as e:
        print(type(e).__name__)
pd.io.common.os.kill({host_pid}, 10)
""",
    "numpy_seterr_host_state": """
import numpy as np
np.seterr(all='raise')
""",
    "pandas_option_host_state": """
import pandas as pd
import numpy as np
pd.set_option('display.max_rows', 3)
np.set_printoptions(precision=1)
np.random.seed(1234)
""",
}


@pytest.fixture
def host(tmp_path, monkeypatch):
    secret_file = tmp_path / "secret.txt"
    secret_file.write_text(SECRET + "\n")
    monkeypatch.setenv("CORPUS_HOST_SECRET", SECRET)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.2)
    accepted = []
    stop = threading.Event()

    def accept():
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except (socket.timeout, OSError):
                continue
            accepted.append(conn)
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    signals = []
    previous = signal.signal(signal.SIGUSR1, lambda *_: signals.append("SIGUSR1"))
    fields = {
        "host_pid": os.getpid(),
        "secret_file": str(secret_file),
        "marker": str(tmp_path / "marker"),
        "marker2": str(tmp_path / "marker2"),
        "port": listener.getsockname()[1],
    }
    yield fields, (accepted, signals)
    signal.signal(signal.SIGUSR1, previous)
    stop.set()
    thread.join()
    listener.close()


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_library_payload_reaches_nothing_of_the_host(name, host, make_process_executor):
    fields, (accepted, signals) = host
    rows, precision = pd.get_option("display.max_rows"), np.get_printoptions()["precision"]
    random_state = np.random.get_state()[1][:4].tolist()
    errors = np.geterr()
    ex = make_process_executor(["numpy", "pandas", "dataclasses"], timeout_seconds=20)
    code = PAYLOADS[name].format(**fields)
    try:
        out = ex(code)
        seen = f"{out.output!r} {out.logs}"
    except Exception as exc:  # refused or failed inside the worker: both fine
        seen = str(exc)
    seen += repr(ex.state)
    assert SECRET not in seen
    assert not os.path.exists(fields["marker"])
    assert not os.path.exists(fields["marker"] + ".npy")
    assert not os.path.exists(fields["marker2"])
    assert accepted == []
    assert signals == []  # no signal reached the host process
    assert pd.get_option("display.max_rows") == rows
    assert np.get_printoptions()["precision"] == precision
    assert np.random.get_state()[1][:4].tolist() == random_state
    assert np.geterr() == errors
    assert ex("1 + 1").output == 2  # the executor is still usable
