"""Programs an agent writes with numpy, pandas, scipy, scikit-learn, matplotlib, PIL and
tabulate (data analysis, statistics, plots saved to a buffer, small models, readers and
writers on in-memory files). Each prints what it found; the tests compare that text with
CPython's.

`PROGRAMS[name] = (libraries, code)`: `libraries` are the top-level names the program needs
authorized besides the standard ones in STDLIB. The two authorization forms a host writes are
derived from them: the base names (`"numpy"`) and the wildcards (`"numpy.*"`).
"""

from __future__ import annotations

STDLIB = ["io", "json", "csv", "math", "statistics", "datetime", "collections", "zipfile"]

PROGRAMS: dict[str, tuple[tuple[str, ...], str]] = {
    # ---------------------------------------------------------------- numpy
    "np_median_percentile": (("numpy",), """
import numpy as np
a = np.arange(10.0)
print(np.median(a), np.percentile(a, [10, 50, 90]), np.quantile(a, 0.25))
"""),
    "np_stats": (("numpy",), """
import numpy as np
rng = np.random.default_rng(0)
x = rng.normal(5, 2, size=1000)
print(round(float(x.mean()), 6), round(float(x.std()), 6), x.min().round(4), x.max().round(4))
print(np.histogram(x, bins=5)[0].tolist())
"""),
    "np_linalg": (("numpy",), """
import numpy as np
a = np.array([[3.0, 1.0], [1.0, 2.0]])
b = np.array([9.0, 8.0])
print(np.linalg.solve(a, b), np.linalg.det(a).round(6))
w, v = np.linalg.eigh(a)
print(w.round(6), np.allclose(a @ v, v * w))
"""),
    "np_polyfit": (("numpy",), """
import numpy as np
x = np.linspace(0, 1, 20)
y = 3 * x ** 2 - 2 * x + 1
print(np.polyfit(x, y, 2).round(6), np.polyval([3, -2, 1], 0.5))
"""),
    "np_broadcast_where": (("numpy",), """
import numpy as np
m = np.arange(12).reshape(3, 4)
print(m * np.array([1, 0, 1, 0]))
print(np.where(m % 3 == 0, m, -1).tolist(), m.sum(axis=0), m.cumsum()[-3:])
"""),
    "np_sort_unique": (("numpy",), """
import numpy as np
v = np.array([5, 3, 5, 1, 3, 9, 1])
print(np.unique(v, return_counts=True), np.argsort(v, kind='stable'), np.sort(v)[::-1])
"""),
    "np_structured_io": (("numpy",), """
import io
import numpy as np
buf = io.StringIO()
np.savetxt(buf, np.arange(6).reshape(2, 3), fmt='%d', delimiter=',')
print(buf.getvalue().strip())
print(np.loadtxt(io.StringIO(buf.getvalue()), delimiter=',').sum())
"""),
    "np_datetime": (("numpy",), """
import numpy as np
d = np.arange('2024-01-01', '2024-01-08', dtype='datetime64[D]')
print(d[[0, -1]], np.busday_count('2024-01-01', '2024-02-01'), (d[-1] - d[0]).astype(int))
"""),
    "np_value_back": (("numpy",), """
import numpy as np
arr = np.arange(5) * 2
total = arr.sum()
print(type(total).__name__, total)
arr
"""),
    "np_random_choice": (("numpy",), """
import numpy as np
rng = np.random.default_rng(42)
print(rng.choice(['a', 'b', 'c'], size=6).tolist(), rng.integers(0, 100, 5).tolist())
np.random.seed(1)
print(np.random.permutation(6).tolist())
"""),
    # --------------------------------------------------------------- pandas
    "pd_to_dict_records": (("pandas",), """
import pandas as pd
df = pd.DataFrame({'name': ['a', 'b'], 'score': [1.5, 2.5]})
print(df.to_dict(orient='records'))
print(df.to_dict(orient='list'))
"""),
    "pd_groupby_agg": (("pandas",), """
import pandas as pd
df = pd.DataFrame({'team': ['x', 'y', 'x', 'y', 'x'], 'pts': [1, 2, 3, 4, 5], 'w': [1, 0, 1, 1, 0]})
g = df.groupby('team').agg(total=('pts', 'sum'), mean=('pts', 'mean'), wins=('w', 'sum'))
print(g)
print(df.groupby('team')['pts'].apply(list).to_dict())
"""),
    "pd_pivot_table": (("pandas",), """
import pandas as pd
df = pd.DataFrame({'month': ['jan', 'jan', 'feb', 'feb'], 'city': ['a', 'b', 'a', 'b'],
                   'sales': [10, 20, 30, 40]})
print(df.pivot_table(index='month', columns='city', values='sales', aggfunc='sum'))
print(df.pivot(index='month', columns='city', values='sales'))
"""),
    "pd_crosstab_ffill": (("pandas",), """
import pandas as pd
df = pd.DataFrame({'g': ['a', 'b', 'a', 'a'], 'h': ['x', 'x', 'y', 'x']})
print(pd.crosstab(df['g'], df['h']))
s = pd.Series([1.0, None, None, 4.0, None])
print(s.ffill().tolist(), s.bfill().tolist(), s.interpolate().tolist())
"""),
    "pd_from_dict_describe": (("pandas",), """
import pandas as pd
df = pd.DataFrame.from_dict([{'a': 1, 'k': 'u'}, {'a': 2, 'k': 'v'}, {'a': 3, 'k': 'u'}])
print(df)
print(df.describe())
print(df.describe(include='object'))
"""),
    "pd_eval_query": (("pandas",), """
import pandas as pd
df = pd.DataFrame({'a': [1, 2, 3, 4], 'b': [10, 20, 30, 40]})
print(df.eval('a * b').tolist())
threshold = 2
print(df.query('a > @threshold'))
"""),
    "pd_read_csv_stringio": (("pandas",), """
import io
import pandas as pd
df = pd.read_csv(io.StringIO('a,b\\n1,2\\n3,4\\n'))
print(df, df.dtypes.tolist())
out = io.StringIO()
df.to_csv(out, index=False)
print(out.getvalue())
"""),
    "pd_json_roundtrip": (("pandas",), """
import io
import pandas as pd
df = pd.DataFrame({'x': [1, 2], 'y': ['p', 'q']})
text = df.to_json(orient='records')
print(text)
print(pd.read_json(io.StringIO(text)))
"""),
    "pd_index_name_merge": (("pandas",), """
import pandas as pd
left = pd.DataFrame({'id': [1, 2, 3], 'v': ['a', 'b', 'c']})
right = pd.DataFrame({'id': [2, 3, 4], 'w': [20, 30, 40]})
m = left.merge(right, on='id', how='outer').sort_values('id')
m.index.name = 'row'
print(m)
print(pd.concat([left, left]).reset_index(drop=True).shape)
"""),
    "pd_datetime_resample": (("pandas",), """
import pandas as pd
idx = pd.date_range('2024-01-01', periods=10, freq='D')
s = pd.Series(range(10), index=idx)
print(s.resample('3D').sum())
print(s.rolling(3).mean().dropna().tolist()[:3])
"""),
    "pd_timezone": (("pandas",), """
import pandas as pd
t = pd.Timestamp('2024-03-10 12:00', tz='UTC')
print(t.tz_convert('America/New_York'), t.tz_convert('Asia/Tokyo').hour)
print(pd.date_range('2024-01-01', periods=3, freq='h', tz='Europe/Paris'))
"""),
    "pd_to_markdown": (("pandas", "tabulate"), """
import pandas as pd
df = pd.DataFrame({'a': [1, 2], 'b': ['x', 'y']})
print(df.to_markdown())
print(df.to_string(index=False))
"""),
    "pd_categorical_apply": (("pandas",), """
import pandas as pd
df = pd.DataFrame({'grade': ['b', 'a', 'c', 'a'], 'n': [3, 1, 4, 1]})
df['grade'] = df['grade'].astype('category')
print(df['grade'].cat.categories.tolist(), df['grade'].value_counts().to_dict())
df['double'] = df['n'].apply(lambda v: v * 2)
df['label'] = df.apply(lambda r: f"{r['grade']}{r['n']}", axis=1)
print(df)
"""),
    "pd_value_back": (("pandas",), """
import pandas as pd
df = pd.DataFrame({'a': [1, 2, 3]})
df['b'] = df['a'] ** 2
print(df.shape)
df
"""),
    # ---------------------------------------------------------------- scipy
    "scipy_ttest": (("scipy", "numpy"), """
from scipy import stats
r = stats.ttest_ind([1, 2, 3, 4, 5], [2, 3, 4, 5, 9])
print(round(float(r.statistic), 6), round(float(r.pvalue), 6))
"""),
    "scipy_linregress": (("scipy", "numpy"), """
from scipy import stats
r = stats.linregress([0, 1, 2, 3, 4], [1, 3, 5, 7, 9.5])
print(round(r.slope, 6), round(r.intercept, 6), round(r.rvalue, 6))
print(round(float(stats.norm.cdf(1.96)), 6), round(float(stats.pearsonr([1, 2, 3], [2, 4, 7])[0]), 6))
"""),
    "scipy_optimize": (("scipy", "numpy"), """
from scipy import optimize
res = optimize.minimize_scalar(lambda x: (x - 2) ** 2 + 1)
print(round(res.x, 4), round(res.fun, 4))
root = optimize.brentq(lambda x: x ** 3 - 2, 0, 2)
print(round(root, 6))
"""),
    "scipy_integrate_interp": (("scipy", "numpy"), """
import numpy as np
from scipy import integrate, interpolate
val, err = integrate.quad(lambda x: x ** 2, 0, 3)
print(round(val, 6))
f = interpolate.interp1d([0, 1, 2], [0, 10, 20])
print(float(f(1.5)))
"""),
    "scipy_sparse_distance": (("scipy", "numpy"), """
import numpy as np
from scipy import sparse
from scipy.spatial import distance
m = sparse.csr_matrix(np.eye(3))
print(m.nnz, m.toarray().sum())
print(round(distance.euclidean([0, 0], [3, 4]), 3), round(distance.cosine([1, 0], [0, 1]), 3))
"""),
    # ---------------------------------------------------------- scikit-learn
    "sklearn_linear_regression": (("sklearn", "numpy"), """
import numpy as np
from sklearn.linear_model import LinearRegression
X = np.array([[1], [2], [3], [4]])
y = np.array([3, 5, 7, 9])
model = LinearRegression().fit(X, y)
print(round(float(model.coef_[0]), 6), round(float(model.intercept_), 6), model.predict([[5]]).round(6))
"""),
    "sklearn_iris_tree": (("sklearn",), """
from sklearn.datasets import load_iris
from sklearn.tree import DecisionTreeClassifier
from sklearn.model_selection import train_test_split
X, y = load_iris(return_X_y=True)
Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0)
clf = DecisionTreeClassifier(random_state=0).fit(Xtr, ytr)
print(X.shape, round(clf.score(Xte, yte), 4))
"""),
    "sklearn_kmeans": (("sklearn", "numpy"), """
import numpy as np
from sklearn.cluster import KMeans
X = np.array([[1, 1], [1.2, 0.9], [8, 8], [8.1, 7.9], [0.9, 1.1], [7.9, 8.2]])
km = KMeans(n_clusters=2, n_init=10, random_state=0).fit(X)
print(sorted(np.bincount(km.labels_).tolist()), np.sort(km.cluster_centers_[:, 0]).round(3))
"""),
    "sklearn_pipeline_scaler": (("sklearn", "numpy"), """
import numpy as np
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.linear_model import LogisticRegression
X = np.array([[0, 1], [1, 1], [2, 0], [3, 0], [4, 1], [5, 0]])
y = np.array([0, 0, 0, 1, 1, 1])
pipe = make_pipeline(StandardScaler(), LogisticRegression()).fit(X, y)
print(pipe.predict([[0, 0], [5, 1]]).tolist(), round(pipe.score(X, y), 4))
"""),
    "sklearn_metrics": (("sklearn",), """
from sklearn.metrics import accuracy_score, confusion_matrix, f1_score
yt = [0, 1, 1, 0, 1]
yp = [0, 1, 0, 0, 1]
print(accuracy_score(yt, yp), confusion_matrix(yt, yp).tolist(), round(f1_score(yt, yp), 4))
"""),
    # ----------------------------------------------------------- matplotlib
    "mpl_subplots_png": (("matplotlib", "numpy"), """
import io
import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt
fig, ax = plt.subplots(figsize=(3, 2))
ax.plot([1, 2, 3], [4, 1, 5], label='line')
ax.legend()
buf = io.BytesIO()
fig.savefig(buf, format='png')
data = buf.getvalue()
print(data[:8], len(data) > 1000, fig.get_size_inches().tolist())
plt.close(fig)
"""),
    "mpl_hist_bar": (("matplotlib", "numpy"), """
import io
import numpy as np
import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt
fig, (a, b) = plt.subplots(1, 2)
counts, edges, _ = a.hist(np.arange(20) % 7, bins=7)
b.bar(['x', 'y'], [3, 5])
print(counts.tolist(), len(b.patches))
buf = io.BytesIO()
fig.savefig(buf, format='svg')
print(buf.getvalue()[:5])
plt.close('all')
"""),
    "mpl_pandas_plot": (("matplotlib", "pandas"), """
import io
import matplotlib
matplotlib.use('Agg')
import pandas as pd
import matplotlib.pyplot as plt
ax = pd.Series([1, 3, 2], index=['a', 'b', 'c']).plot(kind='bar', title='t')
print(ax.get_title(), [t.get_text() for t in ax.get_xticklabels()])
buf = io.BytesIO()
ax.figure.savefig(buf, format='png')
print(buf.getvalue()[:4])
plt.close('all')
"""),
    "mpl_text_layout": (("matplotlib",), """
import io
import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt
fig = plt.figure()
fig.suptitle('Report')
fig.text(0.5, 0.5, 'centre', ha='center')
fig.tight_layout()
buf = io.BytesIO()
fig.savefig(buf, format='pdf')
print(buf.getvalue()[:5], len(fig.texts))
plt.close(fig)
"""),
    # ------------------------------------------------------------------ PIL
    "pil_new_save_png": (("PIL",), """
import io
from PIL import Image, ImageDraw
img = Image.new('RGB', (32, 16), (255, 0, 0))
draw = ImageDraw.Draw(img)
draw.rectangle([4, 4, 12, 12], fill=(0, 0, 255))
buf = io.BytesIO()
img.save(buf, format='PNG')
print(img.size, img.getpixel((8, 8)), buf.getvalue()[:8])
print(Image.open(io.BytesIO(buf.getvalue())).size)
"""),
    "pil_transform": (("PIL",), """
import io
from PIL import Image, ImageOps, ImageFilter
img = Image.new('L', (20, 10), 128)
img.putpixel((0, 0), 255)
r = img.rotate(90, expand=True).resize((5, 10))
print(r.size, ImageOps.invert(img).getpixel((0, 0)), img.filter(ImageFilter.BLUR).mode)
buf = io.BytesIO()
img.convert('RGB').save(buf, format='JPEG', quality=80)
print(buf.getvalue()[:3], img.histogram()[128])
"""),
    "pil_numpy": (("PIL", "numpy"), """
import numpy as np
from PIL import Image
a = np.zeros((4, 6, 3), dtype=np.uint8)
a[:, :3] = 200
img = Image.fromarray(a)
back = np.asarray(img.convert('L'))
print(img.size, img.mode, back.shape, int(back.sum()))
"""),
    "pil_gif_frames": (("PIL",), """
import io
from PIL import Image
frames = [Image.new('P', (8, 8), i) for i in range(3)]
buf = io.BytesIO()
frames[0].save(buf, format='GIF', save_all=True, append_images=frames[1:], duration=50)
g = Image.open(io.BytesIO(buf.getvalue()))
print(g.format, g.n_frames, g.size)
"""),
    # ---------------------------------------------------- standard readers
    "std_csv_json_zip": ((), """
import csv, io, json, zipfile
rows = list(csv.DictReader(io.StringIO('a,b\\n1,x\\n2,y\\n')))
print(rows)
print(json.load(io.StringIO('{"k": [1, 2]}')))
buf = io.BytesIO()
with zipfile.ZipFile(buf, 'w') as z:
    z.writestr('data.txt', 'hello')
with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as z:
    print(z.namelist(), z.read('data.txt'))
"""),
    "std_tabulate": (("tabulate",), """
from tabulate import tabulate
print(tabulate([[1, 'a'], [22, 'bb']], headers=['n', 's'], tablefmt='github'))
"""),
    "mixed_report": (("pandas", "numpy"), """
import io, json
import numpy as np
import pandas as pd
rng = np.random.default_rng(7)
df = pd.DataFrame({'day': pd.date_range('2024-05-01', periods=6), 'visits': rng.integers(10, 50, 6)})
df['weekday'] = df['day'].dt.day_name()
summary = {'total': int(df['visits'].sum()), 'best': df.loc[df['visits'].idxmax(), 'weekday']}
print(json.dumps(summary))
print(df.to_string(index=False))
"""),
}
