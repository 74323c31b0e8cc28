"""Data sets of the course: small worked examples, toy generators and real data.

Three kinds of data live here:

* hand-sized examples printed in the lessons (:func:`worked_example`,
  :func:`msdn_example`), the perceptron quiz's 20 points :func:`quiz_points` (shipped
  inside the package, ``kpcourse/data/quiz_perceptron.csv``) and its rescaling
  :func:`quiz_transform`;
* random toy sets with an exactly known boundary (:func:`circles`, :func:`unit_disc`);
* real data read from files (:func:`load_banknote`, :func:`load_mnist`,
  :func:`load_text`, the capstone's :func:`load_table`) and the text helpers :func:`sentences`, :func:`words`,
  :func:`chapters`.

Each file is looked up, in this order, in the folder named by the environment
variable ``KPCOURSE_DATA`` (same layout as the course's ``shared/data``:
``mnist/train-images-idx3-ubyte.gz``, ``banknote/data_banknote_authentication.txt``,
``texts/moby_dick.txt``, ...), then in the cache ``$XDG_CACHE_HOME/kpcourse``
(default ``~/.cache/kpcourse``), and is otherwise downloaded from its canonical
source into that cache. Every file is checked after every download *and* every
time it is read, so a corrupt or truncated copy is reported, never silently used.

Importing this package opens no file, touches no network and imports neither NLTK
nor torch; all of that happens inside the functions.

One file per part: ``examples`` (hand-sized examples and the quiz), ``toy`` (random toy
sets), ``_files`` (where each file comes from and how it is checked), ``banknote``,
``mnist`` (with :func:`deskew`), ``text`` and ``tables`` (two tables scikit-learn installs).
"""

from ._files import DataIntegrityError, DataNotFoundError, data_path
from .banknote import load_banknote
from .examples import msdn_example, quiz_points, quiz_transform, worked_example
from .mnist import deskew, load_mnist
from .tables import load_table
from .text import NLTKDataWarning, chapters, load_text, sentences, words
from .toy import circles, lines, rings, stripes, unit_disc

__all__ = [
    "DataNotFoundError",
    "DataIntegrityError",
    "NLTKDataWarning",
    "worked_example",
    "quiz_points",
    "quiz_transform",
    "msdn_example",
    "circles",
    "unit_disc",
    "rings",
    "lines",
    "stripes",
    "data_path",
    "load_banknote",
    "load_mnist",
    "deskew",
    "load_text",
    "load_table",
    "sentences",
    "words",
    "chapters",
]
