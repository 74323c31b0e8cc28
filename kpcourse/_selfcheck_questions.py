"""The self-check questions of lessons 01–08 (data for ``kpcourse.selfcheck``).

One list per lesson, each question a dict of ``Question``'s fields: ``prompt``, ``options`` and
the index ``answer`` of the right one (multiple choice), or a number ``answer`` with ``tol``;
``hint`` after a first miss, ``why`` after a right answer or a second miss. The questions test
the idea of the lesson; none is an assignment exercise.
"""

QUESTIONS = {
    "01": [
        dict(prompt="A symmetric similarity score k is tried on a sample of 50 points. Which "
                    "finding proves that k is not a kernel (a dot product of some features)?",
             options=("One of its Gram matrices has a negative eigenvalue.",
                      "It takes negative values for some pairs of points.",
                      "k(x, x) is not 1 for every x.",
                      "Every Gram matrix you computed is positive semi-definite."),
             answer=0,
             hint="What must every Gram matrix of a dot product of features satisfy?",
             why="Every Gram matrix of a kernel is positive semi-definite, so one negative "
                 "eigenvalue refutes k. Dot products can be negative and need not be 1 on the "
                 "diagonal; and a sample that passes never proves k is a kernel."),
        dict(prompt="Why does the plain dot product x · z make thick digits similar to everything?",
             options=("x · z = |x| |z| cos θ grows with the amount of ink, whatever the shape.",
                      "Thick digits have fewer zero pixels, so the cosine of their angle is 0.",
                      "The dot product is not a kernel on images."),
             answer=0,
             hint="Write x · z with the lengths of the two vectors and the angle between them.",
             why="The dot product is the product of the lengths times the cosine of the angle: a "
                 "long vector (much ink) scores high against all. The cosine divides the lengths "
                 "out and compares directions only."),
        dict(prompt="What is the cosine similarity of x = (2, 0) and z = (3, 3)? "
                    "(two decimals)",
             answer=0.7071, tol=0.01,
             hint="Divide x · z by the product of the two lengths.",
             why="x · z = 6, |x| = 2, |z| = 3√2, so the cosine is 6 / (6√2) = 1/√2 ≈ 0.71: "
                 "the angle is 45°, and the length of z plays no part."),
        dict(prompt="The 2-spectrum kernel counts common substrings of length 2, with "
                    "multiplicity: k(s, t) = Σ_u (count of u in s) · (count of u in t). "
                    "What is k(\"abab\", \"bab\")?",
             answer=3, tol=0,
             hint="List the substrings of length 2 of each string with their counts: "
                  "\"abab\" has three of them, \"bab\" two.",
             why="\"abab\" holds ab twice and ba once; \"bab\" holds ba once and ab once. "
                 "k = 2·1 (ab) + 1·1 (ba) = 3."),
    ],
    "02": [
        dict(prompt="Weights w = (1, −1), bias b = 0, learning rate η = 0.5. The point x = (1, 1) "
                    "has label y = +1. What is w₁ after the perceptron has looked at this point?",
             answer=1.5, tol=1e-9,
             hint="First compute the score w · x + b. What does the rule do with a score of "
                  "exactly 0?",
             why="The score is 1 − 1 + 0 = 0, and a score of exactly 0 counts as a mistake, so "
                 "w ← w + η y x = (1.5, −0.5) and b ← 0.5."),
        dict(prompt="Every input (the constant bias feature included) is multiplied by 10. "
                    "What happens to Novikoff's bound (R/γ)² on the number of mistakes?",
             options=("It stays the same.", "It grows 100 times.", "It shrinks 100 times.",
                      "It grows 10 times."),
             answer=0,
             hint="How do the radius R and the margin γ = min yᵢ u · xᵢ (u a unit vector) "
                  "change when every xᵢ is scaled?",
             why="R and γ are both multiplied by 10, so their ratio is unchanged; the perceptron "
                 "itself, started from zero, makes the same mistakes on the scaled data."),
        dict(prompt="A perceptron stops at max_epochs with converged_ = False. "
                    "What can you conclude about the data?",
             options=("Nothing certain: they may be non-separable, or separable with so small a "
                      "margin that more epochs are needed.",
                      "They are not linearly separable.",
                      "The learning rate was too small."),
             answer=0,
             hint="Is non-separability something you observe, or something you prove?",
             why="Novikoff's bound can exceed any number of epochs you allow. Non-separability "
                 "is proved by a certificate (a point inside the other class's convex hull, an "
                 "infeasible linear program), never by a run that did not stop."),
        dict(prompt="On separable data, how does the perceptron's separating line compare with a "
                    "linear SVM's?",
             options=("Its geometric margin is at most the SVM's, and often much smaller.",
                      "It has the same margin: both stop at a separating line.",
                      "Its margin is larger, because it keeps updating until convergence."),
             answer=0,
             hint="Which of the two methods maximises the margin, and which stops at the first "
                  "line without mistakes?",
             why="The SVM's line has the largest geometric margin of all separating lines; the "
                 "perceptron stops at the first line that makes no mistake, which can be close "
                 "to the points."),
    ],
    "03": [
        dict(prompt="Trained from zero on four points, a perceptron ends with mistake counts "
                    "α = [2, 2, 2, 3]. How many updates did it make in all?",
             answer=9, tol=0,
             hint="Each update is one mistake on one point.",
             why="αᵢ counts the mistakes on point i, and the perceptron updates once per "
                 "mistake: 2 + 2 + 2 + 3 = 9."),
        dict(prompt="The same data, trained from zero once with learning rate λ = 0.25 and once "
                    "with λ = 1. What differs?",
             options=("Only the size of w and b: α and every prediction are the same.",
                      "α: the larger rate makes fewer mistakes.",
                      "The predictions: the larger rate moves the line further."),
             answer=0,
             hint="Write w and b as λ times a sum over the mistakes. Can λ change the sign of a "
                  "score?",
             why="w = λ Σ αᵢ yᵢ xᵢ and b = λ Σ αᵢ yᵢ: every score is λ times the score of the "
                 "λ = 1 run, so its sign, each mistake and hence α do not depend on λ > 0."),
        dict(prompt="After training, point j has α_j = 0. What happens if you delete it from "
                    "the model?",
             options=("No prediction changes.",
                      "The points near it are misclassified.",
                      "The bias must be retrained."),
             answer=0,
             hint="Which terms of the prediction rule does point j contribute?",
             why="The score b + Σ αᵢ yᵢ k(xᵢ, x) has a term for point j only through α_j, and "
                 "the bias sums αᵢ yᵢ too: with α_j = 0 point j adds nothing to either."),
        dict(prompt="A dual perceptron has two support points with α = (1, 2), labels y = (+1, −1) "
                    "and bias 0. For a new x, k(x₁, x) = 3 and k(x₂, x) = 1. What is its score?",
             answer=1, tol=1e-9,
             hint="Score = b + Σ αᵢ yᵢ k(xᵢ, x).",
             why="1·(+1)·3 + 2·(−1)·1 = 1, so x is predicted +1."),
    ],
    "04": [
        dict(prompt="With φ(x) = (x₁², x₂², √2 x₁x₂), what is φ(x) · φ(z) for x = (1, 2) and "
                    "z = (3, 1)?",
             answer=25, tol=1e-9,
             hint="You do not need φ: compute (x · z)² instead.",
             why="φ(x) · φ(z) = (x · z)² = (3 + 2)² = 25; the features give the same: "
                 "9 + 4 + 2·6 = 25."),
        dict(prompt="How many features does the polynomial kernel (1 + x · z)² have in d = 2 "
                    "dimensions (one per monomial of degree at most 2)?",
             answer=6, tol=0,
             hint="Count the monomials 1, x₁, x₂, … of degree 0, 1 and 2; or use C(d + n, n).",
             why="1, x₁, x₂, x₁², x₂², x₁x₂: C(2 + 2, 2) = 6."),
        dict(prompt="Two rings centred at the origin, one inside the other. Which features make "
                    "them separable by a line (with a bias)?",
             options=("(x₁², x₂²)", "(x₁, x₂)", "(x₁x₂)", "(x₁ + x₂)"),
             answer=0,
             hint="Which quantity tells the inner ring from the outer one?",
             why="The radius: x₁² + x₂² is small on the inner ring and large on the outer one, "
                 "a linear function of (x₁², x₂²). In the plane that line is a circle (an "
                 "ellipse in general) between the rings."),
        dict(prompt="For d = 784 pixels and degree 4, why compute (1 + x · z)⁴ rather than the "
                    "dot product of the explicit features?",
             options=("The kernel costs O(d) per pair; the features number Θ(d⁴), billions here.",
                      "The explicit features give a different, less accurate dot product.",
                      "The kernel is an approximation that is good enough on images."),
             answer=0,
             hint="Count the operations each way.",
             why="Both give the same number exactly; the kernel needs one 784-term dot product, "
                 "the features C(788, 4), about 1.6·10¹⁰ of them."),
    ],
    "05": [
        dict(prompt="For the Gaussian kernel exp(−‖x − z‖² / (2σ²)), what is k(x, z) when "
                    "‖x − z‖ = σ? (three decimals)",
             answer=0.6065, tol=0.002,
             hint="Put ‖x − z‖² = σ² into the exponent.",
             why="exp(−σ² / (2σ²)) = exp(−1/2) ≈ 0.607: at one bandwidth the similarity has "
                 "fallen by about 40 %."),
        dict(prompt="This course's σ = 0.5. What is scikit-learn's γ for the same kernel, "
                    "exp(−γ ‖x − z‖²)?",
             answer=2, tol=1e-9,
             hint="Match the exponents: γ = 1 / (2σ²).",
             why="γ = 1 / (2 · 0.25) = 2. The variance form would write γ = σ² = 0.25 instead: "
                 "check a source's convention before copying its numbers."),
        dict(prompt="What does the cost of one RBF kernel-perceptron prediction grow with?",
             options=("The number of support vectors (points with αᵢ > 0), times d.",
                      "The dimension of the feature space, which is infinite.",
                      "Nothing: it is constant once the model is trained."),
             answer=0,
             hint="Write down the score that a prediction computes.",
             why="The score Σ αᵢ yᵢ k(xᵢ, x) has one kernel evaluation, O(d), per support "
                 "vector: the model is non-parametric, and grows with the data."),
        dict(prompt="What happens to the RBF kernel perceptron as σ becomes very small?",
             options=("Each training point only affects its immediate neighbourhood: the model "
                      "fits the training set but says little between the points.",
                      "The boundary becomes a straight line.",
                      "Every point looks alike, and the model predicts one class."),
             answer=0,
             hint="How far from xᵢ is the bump k(xᵢ, ·) still large?",
             why="With a tiny σ, k(xᵢ, x) is near 1 only for x very close to xᵢ and near 0 "
                 "elsewhere: the model memorises the training points (a nearest-neighbour-like "
                 "rule) and tends to generalise poorly."),
    ],
    "06": [
        dict(prompt="How much memory does a float32 Gram matrix of N = 20,000 points take, in GB "
                    "(10⁹ bytes)?",
             answer=1.6, tol=0.01,
             hint="N² entries of 4 bytes each.",
             why="20,000² · 4 = 1.6 · 10⁹ bytes = 1.6 GB, whatever the dimension d of the points."),
        dict(prompt="N doubles, d stays the same. By what factor does the time to compute the "
                    "whole Gram matrix grow?",
             answer=4, tol=0,
             hint="The cost is O(N² d).",
             why="Twice as many rows and twice as many columns: 2² = 4 times the kernel "
                 "evaluations, each still O(d)."),
        dict(prompt="Computed as ‖x‖² − 2 x · z + ‖z‖² in float32, squared distances between "
                    "points far from the origin can come out slightly negative. Why?",
             options=("Cancellation: two large, nearly equal numbers are subtracted, and their "
                      "rounding errors are larger than the small difference.",
                      "float32 cannot hold negative numbers exactly.",
                      "The formula is wrong for points far from the origin."),
             answer=0,
             hint="Compare the size of ‖x‖² with the size of ‖x − z‖².",
             why="The formula is exact in real numbers, but its terms are huge next to the "
                 "result; clamp at 0, centre the data first or use float64."),
        dict(prompt="In float16 (largest finite value 65,504), a sum of kernel values should be "
                    "70,000. What does it become?",
             options=("inf", "65,504", "−65,504 (it wraps around)", "70,000, rounded to 3 digits"),
             answer=0,
             hint="What does IEEE arithmetic do with a result beyond the largest finite value?",
             why="It overflows to +inf (round to nearest). Its sign survives, its size does "
                 "not: two such scores can no longer be compared."),
    ],
    "07": [
        dict(prompt="A one-vs-rest classifier for the digits 0–4 gives the scores "
                    "f = (−1.2, 0.4, 2.1, −0.3, 2.0) for one image. Which digit does it predict?",
             answer=2, tol=0,
             hint="Each perceptron says how much the image looks like its digit.",
             why="It predicts argmax_c f_c(x) = 2 (score 2.1): every class score is compared, "
                 "not only its sign."),
        dict(prompt="Why does deskewing help a kernel on raw pixels?",
             options=("The kernel compares pixels at the same positions, so the same digit "
                      "written with different slants looks different; the shear removes the slant.",
                      "It scales the pixels to [0, 1], which keeps the kernel values in range.",
                      "It adds pixels, so the kernel sees more features."),
             answer=0,
             hint="Is a pixel-by-pixel dot product invariant to slanting a digit?",
             why="Raw-pixel kernels are neither rotation- nor shear-invariant; the shear computed "
                 "from the image moments straightens every digit, so digits of one class overlap "
                 "more."),
        dict(prompt="The lecture's GPU class adds all the mistakes of an epoch at once (batch "
                    "updates). What does that do on separable data?",
             options=("It still converges, but slowly: after ten epochs it is far less accurate "
                      "than online updates.",
                      "It never converges.",
                      "Nothing: batch and online updates give the same model."),
             answer=0,
             hint="Online, a mistake changes the scores of the following samples at once.",
             why="On separable data the batch rule converges too (its mistake bound carries an "
                 "extra factor N, the lesson's appendix asks for the proof), but each epoch's "
                 "mistakes are added without seeing each other, and the accuracy measured after "
                 "ten epochs is much lower."),
        dict(prompt="Why is the averaged perceptron much better than the last one in the first "
                    "epochs?",
             options=("It averages the predictors over every step, so the last few mistakes move "
                      "it little.",
                      "It makes fewer mistakes during training.",
                      "It uses a larger learning rate."),
             answer=0,
             hint="What does the last perceptron depend on most?",
             why="The last perceptron is one noisy point of the trajectory, moved by its latest "
                 "mistakes; the average weights each predictor by how long it survived."),
    ],
    "08": [
        dict(prompt="For which perceptron do Freund and Schapire (1999) state their "
                    "generalisation guarantee?",
             options=("The voted perceptron.", "The averaged perceptron.", "The last perceptron.",
                      "All three equally."),
             answer=0,
             hint="Which variant keeps every intermediate predictor?",
             why="Their theorem is about the voted perceptron; the averaged one is its cheap "
                 "stand-in, which they ran beside it, but the theorem does not cover it."),
        dict(prompt="What is the geometric margin y (w · x + b) / ‖w‖ of the point x = (1, 1), "
                    "y = +1, for w = (3, 4) and b = 0?",
             answer=1.4, tol=1e-6,
             hint="‖w‖ = √(3² + 4²).",
             why="(3 + 4) / 5 = 1.4: the distance of x from the line, signed by whether it is on "
                 "its class's side."),
        dict(prompt="How do the soft-margin SVM's dual coefficients αᵢ differ from the "
                    "perceptron's?",
             options=("The SVM's lie in [0, C] and come from an optimiser; the perceptron's are "
                      "mistake counts, with no upper bound.",
                      "They are the same numbers, computed faster.",
                      "The SVM's are integers; the perceptron's are real numbers."),
             answer=0,
             hint="What bounds the SVM's αᵢ, and what does the perceptron's αᵢ count?",
             why="Both predict with sign(b + Σ αᵢ yᵢ k(xᵢ, x)); the SVM chooses αᵢ ∈ [0, C] by "
                 "solving its dual problem, the perceptron counts mistakes."),
        dict(prompt="You pick σ by the lowest test error and report that error. The reported "
                    "error is:",
             options=("optimistic: lower, on average, than the error on new data.",
                      "unbiased, because the test set was not used for training.",
                      "pessimistic."),
             answer=0,
             hint="The test set took part in a choice.",
             why="The minimum over several σ of noisy test errors is biased downwards; choose σ "
                 "by cross-validation on the training split and use the test set once."),
        dict(prompt="A point has y f(x) = 0.5: right side of the line, but close to it. Which loss "
                    "does it add to: the perceptron loss max(0, −y f(x)) or the hinge loss "
                    "max(0, 1 − y f(x))?",
             options=("Only the hinge loss: it still charges correct points inside the margin.",
                      "Only the perceptron loss.", "Both.", "Neither."),
             answer=0,
             hint="Evaluate both at y f(x) = 0.5.",
             why="The perceptron loss is 0 for every correct point; the hinge loss is 1 − 0.5 = 0.5, so "
                 "the SVM keeps pushing the point out to the margin and the perceptron does not."),
    ],
}
