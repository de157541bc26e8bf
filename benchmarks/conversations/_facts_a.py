"""Hand-written fact templates, part one: the answer in the reply, short turns, first person.

A template is a few exchanges ("pieces", each placed in its own session, in
order) and the questions that ask about it. In a line, ``o`` is the person
the fact is about and ``x`` the other speaker; a trailing ``*`` marks an
evidence turn, ``~`` a statement a later one replaces. ``{name}`` slots are
filled from ``_slots.SLOTS`` (``city1``/``city2`` draw distinct values from
``city``); ``{O}`` and ``{X}`` are the two speakers' names.
"""

from benchmarks.conversations._model import FactTemplate, T

__all__ = ["FIRST_PERSON", "REPLY", "SHORT"]

#: the turn that answers is the reply to the turn the question matches
REPLY: tuple[FactTemplate, ...] = (
    T(
        [[("x", "Did you end up adopting the {animal} from the shelter?"),
          ("o*", "Yes!! We called him {petname}, he's tiny.")]],
        ["What did {O} name the {animal} adopted from the shelter?",
         "What's the name of the {animal} {O} took home from the shelter?"],
        "{petname}",
    ),
    T(
        [[("x", "So where are you two going for the honeymoon?"),
          ("o*", "{country}! Booked it last night, two whole weeks.")]],
        ["Where is {O} going on honeymoon?", "Which country did {O} pick for the honeymoon?"],
        "{country}",
    ),
    T(
        [[("x", "What did you get your dad for his birthday in the end?"),
          ("o*", "A {gift}. He's been dropping hints since March."),
          ("x", "Ha, he'll love it.")]],
        ["What birthday present did {O} buy for {O}'s father?",
         "What did {O} give {O}'s dad for his birthday?"],
        "a {gift}",
    ),
    T(
        [[("x", "Which car did you go for in the end?"),
          ("o*", "The {car}. Second hand but barely driven.")]],
        ["What car did {O} end up buying?", "Which vehicle did {O} choose?"],
        "a {car}",
    ),
    T(
        [[("x", "How did the interview go on Friday?"),
          ("o*", "They offered it to me! I start as {jobtitle} next month."),
          ("x", "{yay}")]],
        ["What position was {O} offered after the interview?",
         "What job did {O} get from Friday's interview?"],
        "{jobtitle}",
    ),
    T(
        [[("x", "What are you reading at the moment?"),
          ("o*", "{book}. A friend lent it to me and I can't put it down.")]],
        ["Which book is {O} reading?", "What novel has {O} been reading lately?"],
        "{book}",
    ),
    T(
        [[("x", "Did the band ever settle on a name?"),
          ("o*", "We're going with {bandname}. Took a vote after rehearsal.")]],
        ["What is {O}'s band called?", "What name did {O}'s band choose?"],
        "{bandname}",
    ),
    T(
        [[("x", "What did the vet say about the limp?"),
          ("o*", "Sprained paw, nothing broken. {rest}")]],
        ["What did the vet find wrong with {O}'s dog?", "Why was {O}'s dog limping?"],
        "a sprained paw",
    ),
    T(
        [[("x", "Where did you end up going for your anniversary dinner?"),
          ("o*", "{restaurant}, the little {cuisine} place down by the river.")]],
        ["Which restaurant did {O} choose for the anniversary?",
         "Where did {O} celebrate the anniversary with dinner?"],
        "{restaurant}",
    ),
    T(
        [[("x", "So what instrument did your daughter pick at school?"),
          ("o*", "The {instrument}, and the neighbours are being very patient about it.")]],
        ["What instrument does {O}'s daughter play?",
         "Which instrument is {O}'s daughter learning?"],
        "the {instrument}",
    ),
    T(
        [[("x", "Did you decide what to study in the evenings?"),
          ("o*", "{subject}, two nights a week at the college on {street}.")]],
        ["What evening course is {O} taking?", "What subject did {O} sign up to study?"],
        "{subject}",
    ),
    T(
        [[("x", "And the boat, did it get a name in the end?"),
          ("o*", "{boatname}, after my grandmother.")]],
        ["What did {O} call the boat?", "What name is painted on {O}'s boat?"],
        "{boatname}",
    ),
    T(
        [[("x", "What did you make for the potluck in the end?"),
          ("o*", "My {dish}. There wasn't a crumb left.")]],
        ["What did {O} bring to the potluck?", "Which dish did {O} cook for the shared dinner?"],
        "{dish}",
    ),
)

#: the answer is a reply of a few words whose meaning lives in the turn before it
SHORT: tuple[FactTemplate, ...] = (
    T(
        [[("x", "Which colour did you paint the kitchen in the end?"), ("o*", "{colour}.")]],
        ["What colour is {O}'s kitchen now?", "What shade did {O} choose for the kitchen walls?"],
        "{colour}",
    ),
    T(
        [[("x", "How many people are coming on Saturday?"), ("o*", "About {guests}."),
          ("x", "Blimey, that's a lot of sausage rolls.")]],
        ["How many guests is {O} expecting at the Saturday party?",
         "How big is {O}'s party going to be?"],
        "about {guests}",
    ),
    T(
        [[("x", "What time's your flight tomorrow?"), ("o*", "{clock}, ugh.")]],
        ["When does {O}'s flight leave?", "At what time is {O} flying out?"],
        "{clock}",
    ),
    T(
        [[("x", "What are you calling the sourdough starter?"), ("o*", "{starter}.")]],
        ["What is {O}'s sourdough starter named?", "What name did {O} give the starter?"],
        "{starter}",
    ),
    T(
        [[("x", "Which flavour did you pick for the wedding cake?"),
          ("o*", "{flavour}, obviously.")]],
        ["What flavour is {O}'s wedding cake?", "Which cake flavour did {O} go for?"],
        "{flavour}",
    ),
    T(
        [[("x", "How long's the ride to the new office?"), ("o*", "{minutes} minutes."),
          ("x", "Not bad at all.")]],
        ["How long does {O}'s commute take now?", "How far is {O}'s new workplace in time?"],
        "{minutes} minutes",
    ),
    T(
        [[("x", "Where's the conference this year?"), ("o*", "{city}.")]],
        ["In which city is {O}'s conference?", "Where is {O} going for the conference?"],
        "{city}",
    ),
    T(
        [[("x", "How did you do on the theory test?"), ("o*", "{points} out of 50!"),
          ("x", "{yay}")]],
        ["What score did {O} get on the theory exam?", "How many marks did {O} get?"],
        "{points} out of 50",
    ),
    T(
        [[("x", "And the baby's middle name?"), ("o*", "{middlename}.")]],
        ["What middle name did {O} choose for the baby?",
         "What is the second name of {O}'s baby?"],
        "{middlename}",
    ),
    T(
        [[("x", "Which seats did you get for the final?"),
          ("o*", "Row {row}, right behind the goal.")]],
        ["Where is {O} sitting for the final?", "What row are {O}'s tickets in?"],
        "row {row}",
    ),
    T(
        [[("x", "What did the plumber charge you in the end?"), ("o*", "{price} quid.")]],
        ["How much did {O} pay the plumber?", "What was the plumber's bill for {O}?"],
        "{price} pounds",
    ),
    T(
        [[("x", "Who won the quiz night?"), ("o*", "Us! Finally."),
          ("x", "What was the team name again?"), ("o*", "{teamname}.")]],
        ["What is the name of {O}'s quiz team?", "Which team name does {O} play quizzes under?"],
        "{teamname}",
    ),
)

#: the speaker's name is nowhere in the turn; the other speaker says something alike
FIRST_PERSON: tuple[FactTemplate, ...] = (
    T(
        [[("o*", "I ran my first marathon last weekend! {hours} hours, legs are dead."),
          ("x", "I keep saying I'll start running and never do.")]],
        ["How long did it take {O} to finish the marathon?",
         "What was {O}'s marathon time?"],
        "{hours} hours",
    ),
    T(
        [[("o*", "I finally booked lessons, I'm learning {language} on Tuesday nights."),
          ("x", "I did a bit of {language2} at school but it's all gone now.")]],
        ["Which language is {O} learning?", "What language class does {O} go to?"],
        "{language}",
    ),
    T(
        [[("o*", "I've been volunteering at the {venue} every Sunday morning."),
          ("x", "I used to help out at a charity shop, years ago.")]],
        ["Where does {O} volunteer?", "What does {O} do on Sunday mornings?"],
        "volunteers at the {venue}",
    ),
    T(
        [[("o*", "I've given up {vice}. Three weeks now."), ("x", "{yay}"),
          ("x", "I tried that once and lasted two days.")]],
        ["What has {O} quit?", "What habit did {O} give up?"],
        "{vice}",
    ),
    T(
        [[("o*", "I got promoted to {jobtitle}, still can't quite believe it."),
          ("x", "I'm stuck in the same role as two years ago, honestly.")]],
        ["What was {O} promoted to?", "What is {O}'s new title at work?"],
        "{jobtitle}",
    ),
    T(
        [[("x", "Shall I bring a dessert on Friday?"),
          ("o*", "Sure, just nothing with {allergen}, I'm allergic."),
          ("x", "Noted. I'm the opposite, I'll eat anything.")]],
        ["What is {O} allergic to?", "Which food must {O} avoid?"],
        "{allergen}",
    ),
    T(
        [[("o*", "I sold my old {item} on the weekend for {price} pounds."),
          ("x", "I should sell mine too, it's just gathering dust.")]],
        ["How much did {O} get for the old {item}?", "For what price did {O} sell the {item}?"],
        "{price} pounds",
    ),
    T(
        [[("o*", "I grew up in {town}. Tiny place, one bus a day."),
          ("x", "I grew up in the city, I can't imagine that.")]],
        ["Where did {O} grow up?", "Which town is {O} from?"],
        "{town}",
    ),
    T(
        [[("o*", "I broke my wrist {accident} last winter."),
          ("x", "Ouch. I've never broken anything, touch wood.")]],
        ["How did {O} break a wrist?", "What caused {O}'s broken wrist?"],
        "{accident}",
    ),
    T(
        [[("o*", "I've been playing {game} with my nephew every evening."),
          ("x", "I'm hopeless at that sort of thing.")]],
        ["Which game does {O} play with the nephew?", "What does {O} play in the evenings?"],
        "{game}",
    ),
    T(
        [[("o*", "I passed my {exam} exam, I'm officially qualified."),
          ("x", "I failed mine twice before I got it.")]],
        ["Which exam did {O} pass?", "What qualification did {O} get?"],
        "the {exam} exam",
    ),
    T(
        [[("o*", "I've started keeping bees, two hives at the bottom of the garden."),
          ("x", "I'd be terrified, I'm scared of wasps.")]],
        ["How many hives does {O} keep?", "What new hobby did {O} take up in the garden?"],
        "two beehives",
    ),
)
